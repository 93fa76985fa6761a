--TEST--
JSON_HEX_TAG escapes < and > as \u003C \u003E
--FLAGS--
JSON_HEX_TAG
--VALUE--
"<script>x</script>"
--EXPECT--
"\u003Cscript\u003Ex\u003C\/script\u003E"
