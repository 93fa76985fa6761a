/*
 * What a service (layer 5: cases, auth, triage, measure, export) answers besides
 * its data: an error enum and a message (services.h).  Services never see
 * HTTP; api_svc() (api_reply.c) is the one place these become statuses.
 */
#include <stdarg.h>
#include <stdio.h>

#include "services.h"

int svc_fail(struct svc_error *e, enum svc_status status, const char *code, const char *fmt, ...)
{
	va_list ap;

	e->status = status;
	e->code = code;
	e->challenge = NULL;
	va_start(ap, fmt);
	vsnprintf(e->message, sizeof e->message, fmt, ap);
	va_end(ap);
	return -1;
}
