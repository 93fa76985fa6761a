/*
 * Who is triaging: a name kept in this browser, sent as "by" with every
 * triage change (the daemon records it in the audit trail).  An API token
 * may be kept too: it goes with every request (api.js), and then the
 * daemon takes the token's owner as the person.
 */
import { h, replace } from '../dom.js';
import { me, ME_KEY, store, stored, TOKEN_KEY } from '../store.js';

export function identityBox() {
	const name = h('input', {
		type: 'text', id: 'me-name', class: 'me-name', maxlength: '64', autocomplete: 'username',
		placeholder: 'your name', value: me(), 'data-testid': 'me-name', 'aria-describedby': 'me-hint',
	});
	name.addEventListener('input', () => {
		store(ME_KEY, name.value.trim());
		document.querySelectorAll('input.me-name').forEach((x) => { if (x !== name) x.value = name.value; });
	});
	const tok = h('input', {
		type: 'password', class: 'me-token', autocomplete: 'off', placeholder: 'API token (optional)',
		value: stored(TOKEN_KEY), 'aria-label': 'API token',
	});
	tok.addEventListener('change', () => store(TOKEN_KEY, tok.value.trim()));
	return h('div', { class: 'identity' },
		h('label', { for: 'me-name' }, 'You are '), name,
		h('details', { class: 'token' }, h('summary', null, 'token'), tok,
			h('p', { class: 'hint', id: 'me-hint' }, 'Your name goes in the audit trail of every change you make. ',
				'With an API token (phpcmp token add NAME), the daemon takes the name from the token.')));
}

/* True (and a notice in msgBox) when no name is set yet. */
export function needName(msgBox) {
	if (me()) return false;
	replace(msgBox, h('div', { class: 'notice error', role: 'alert', 'data-testid': 'need-name' },
		'Say who you are first (“You are …”): every triage change is recorded with a name.'));
	const input = document.querySelector('input.me-name');
	if (input) input.focus();
	return true;
}
