/*
 * A stored case as something to paste: the POST /api/cases body that
 * reproduces it, and the curl command that sends it.  Pure.
 */

/* A shell word: 'it'\''s'. */
export const shellQuote = (s) => `'${s.replace(/'/g, "'\\''")}'`;

/*
 * The POST /api/cases body that reproduces a stored case exactly (same
 * content, so the daemon files the new comparison under the same id).
 */
export function caseBody(c) {
	const body = { title: c.title, code: c.code };
	if (c.setup) body.setup = c.setup;
	body.flags = c.flags || 0;
	body.depth = c.depth !== undefined && c.depth !== null ? c.depth : 512;
	if (c.expect !== undefined && c.expect !== null) body.expect = c.expect;
	if (c.expectf) body.expectf = true; /* expect is an --EXPECTF-- pattern */
	if (c.measure) body.measure = c.measure;
	return body;
}

/* A curl command POSTing the case to origin, failing on a mismatch; flags by name, defaults left out. */
export function curlFor(c, origin) {
	const body = caseBody(c);
	if (body.flags === 0) delete body.flags;
	else if (c.flag_names && c.flag_names.length) body.flags = c.flag_names.join('|');
	if (body.depth === 512) delete body.depth;
	return `curl -sS --fail-with-body -H 'Content-Type: application/json' \\\n  --data-binary ${shellQuote(JSON.stringify(body))}` +
		` \\\n  ${shellQuote(`${origin}/api/cases?fail_on_differ=1`)}`;
}
