/* schema.sql, embedded at build time as the NUL-terminated string schema_sql. */
	.section .rodata
	.global schema_sql
	.type schema_sql, @object
schema_sql:
	.incbin "schema.sql"
	.byte 0
	.section .note.GNU-stack,"",@progbits
