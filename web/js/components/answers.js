/*
 * A case's builds grouped by identical answer, as 3v4l groups versions
 * (issue 45): one line per distinct answer, the builds that gave it first
 * ("base 8.2.32, head 8.2.36: {}" / "cand2 8.1.0RC1: [{}]").  A build the
 * case is unsupported on is a group of its own, with why.  Pure but for
 * the DOM: answerKey and groupAnswers are tested in tests/web.
 */
import { h } from '../dom.js';
import { rolesOf } from '../builds.js';

const SHOWN = 200; /* characters of an answer shown in the line */

/* What a build answered, as a string that is equal for equal answers. */
export function answerKey(r) {
	if (!r) return '';
	if (r.unsupported) return JSON.stringify(['unsupported', r.unsupported]);
	return JSON.stringify([r.status, r.signal ?? null, r.output ?? null, r.output_base64 ?? null,
		r.error_code ?? 0, r.error_msg ?? null, r.exception ?? null]);
}

/* The answer in words: the output, false with its error, a throw, or how it ended. */
export function answerText(r) {
	if (!r) return '?';
	if (r.unsupported) return `unsupported: ${r.unsupported}`;
	if (r.status !== 'ok') return r.failure ? `${r.status}: ${r.failure}` : r.status;
	if (r.exception) return `throws ${r.exception.class}: ${r.exception.message}`;
	if (typeof r.output === 'string') return r.output;
	if (r.output === false) return `false (${r.error_code}: ${r.error_msg || ''})`;
	return '(output too large to show here: see below)';
}

/* [{roles: [...], result}] in the order of their first build (base first). */
export function groupAnswers(results) {
	const groups = new Map();
	for (const role of rolesOf(results)) {
		const k = answerKey(results[role]);
		if (!groups.has(k)) groups.set(k, { roles: [], result: results[role] });
		groups.get(k).roles.push(role);
	}
	return [...groups.values()];
}

const buildLabel = (role, r) => `${r.build || role}${r.php_version ? ` ${r.php_version}` : ''}`;

/* The panel: nothing for a case error (no build answered). */
export function answersPanel(results) {
	const roles = rolesOf(results);
	if (roles.length < 2) return null;
	const groups = groupAnswers(results);
	return h('section', { class: 'panel answers', 'aria-labelledby': 'h-answers', 'data-testid': 'answers' },
		h('h2', { id: 'h-answers' }, groups.length === 1 ? 'One answer' : `${groups.length} answers`),
		h('ul', { class: 'answer-groups' }, groups.map((g) => {
			const text = answerText(g.result);
			return h('li', { 'data-testid': 'answer-group', 'data-roles': g.roles.join(' '),
				class: g.result.unsupported ? 'unsupported' : null },
			h('strong', null, g.roles.map((role) => buildLabel(role, results[role])).join(', ')), ': ',
			h('code', { class: 'mono', title: text.length > SHOWN ? text : null },
				text.length > SHOWN ? `${text.slice(0, SHOWN)}…` : text));
		})));
}
