/* base64 through libcrypto (EVP_EncodeBlock): no hand-written copy. */
#include <stdlib.h>
#include <string.h>

#include <openssl/evp.h>

#include "model.h"

char *base64_encode(const void *data, size_t len)
{
	size_t n = 4 * ((len + 2) / 3) + 1;
	char *out;

	if (len > (size_t)INT32_MAX / 4 * 3 || (out = malloc(n)) == NULL)
		return NULL;
	EVP_EncodeBlock((unsigned char *)out, data, (int)len);
	return out;
}

void base64url_encode(const void *data, size_t len, char *out, size_t outsize)
{
	size_t n;

	if (outsize < 4 * ((len + 2) / 3) + 1) {
		if (outsize)
			out[0] = '\0';
		return;
	}
	n = (size_t)EVP_EncodeBlock((unsigned char *)out, data, (int)len);
	while (n > 0 && out[n - 1] == '=')
		n--;
	out[n] = '\0';
	for (size_t i = 0; i < n; i++)
		out[i] = out[i] == '+' ? '-' : out[i] == '/' ? '_' : out[i];
}
