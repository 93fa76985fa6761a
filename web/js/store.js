/*
 * What this browser keeps (localStorage): who is triaging, and an API token
 * that goes with every request.  Private browsing without storage works too.
 */

export const ME_KEY = 'phpcmp.by';
export const TOKEN_KEY = 'phpcmp.token';

export function stored(key) {
	try {
		return localStorage.getItem(key) || '';
	} catch {
		return '';
	}
}

export function store(key, v) {
	try {
		if (v) localStorage.setItem(key, v);
		else localStorage.removeItem(key);
	} catch {
		/* private mode */
	}
}

/* The name sent as "by" with triage changes. */
export const me = () => stored(ME_KEY).trim();

export const token = () => stored(TOKEN_KEY);
