/*
 * The JSON API (docs/api.md) over fetch.  Every failure is an ApiError with
 * the API's own code and message, or one saying what went wrong on the way
 * (daemon unreachable, an answer that is not JSON).  An aborted request
 * rejects with the AbortError itself (isAbort) so views can ignore it.
 */
import { token } from './store.js';

export class ApiError extends Error {
	constructor(status, code, message) {
		super(message);
		this.name = 'ApiError';
		this.status = status;
		this.code = code;
	}
}

export const isAbort = (e) => !!e && e.name === 'AbortError';

const authHeaders = (headers = {}) => {
	const t = token();
	if (t) headers.Authorization = `Bearer ${t}`;
	return headers;
};

/*
 * What an answer means: its parsed JSON, or an ApiError.  Pure (the unit
 * tests feed it answers): status and statusText of the response, its body
 * text, and the method and path for messages.
 */
export function parseAnswer({ status, ok, statusText }, text, method, path) {
	let data = null;
	try {
		data = text ? JSON.parse(text) : null;
	} catch {
		data = undefined;
	}
	if (ok && data !== undefined) return data;
	if (data && data.error && data.error.message)
		throw new ApiError(status, data.error.code || 'error', data.error.message);
	if (ok)
		throw new ApiError(status, 'bad_response', `${method} ${path} answered something that is not JSON`);
	throw new ApiError(status, `http_${status}`,
		`${method} ${path} failed: ${statusText || `HTTP ${status}`}${text ? ` — ${text.slice(0, 200)}` : ''}`);
}

/* fetch + JSON: api(path, { method, body, signal }) resolves to the answer's data. */
export async function api(path, { method = 'GET', body, signal } = {}) {
	const init = { method, headers: authHeaders({ Accept: 'application/json' }), signal };
	/* Every write says it is JSON, a body-less one too: the daemon refuses
	 * any other, which is what keeps other sites' forms and beacons out. */
	if (body !== undefined || method === 'POST') init.headers['Content-Type'] = 'application/json';
	if (body !== undefined) init.body = JSON.stringify(body);
	let res;
	try {
		res = await fetch(path, init);
	} catch (e) {
		if (isAbort(e)) throw e;
		throw new ApiError(0, 'unreachable',
			`Cannot reach the phpcmp daemon at ${location.host} (${e && e.message ? e.message : e})`);
	}
	return parseAnswer(res, await res.text(), method, path);
}

/* GET a text (not JSON) answer: a .phpt, a case file. */
export async function fetchText(path) {
	const res = await fetch(path, { headers: authHeaders() });
	const t = await res.text();
	if (res.ok) return t;
	let err = null;
	try {
		err = JSON.parse(t).error;
	} catch {
		err = null;
	}
	throw new ApiError(res.status, err ? err.code : `http_${res.status}`, err ? err.message : t.slice(0, 200));
}
