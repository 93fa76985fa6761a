/*
 * #/new — submit a case (?from=ID prefills the form from a stored case).
 */
import { h, replace, setTitle } from '../dom.js';
import { ApiError, isAbort } from '../api.js';
import { shortFlag } from '../format.js';
import { navigate } from '../router.js';
import { flagNames, getFlags } from '../session.js';
import { errorBox, loading } from '../components/ui.js';

export function submitView(ctx, params, query) {
	setTitle('Submit a case');
	const flagsBox = h('div', { class: 'flag-grid' }, loading('flags'));
	const flagsValue = h('output', { class: 'mono', 'aria-live': 'polite' }, '0');
	const title = h('input', { id: 'f-title', name: 'title', type: 'text', maxlength: '512', placeholder: 'the first line of the code', autocomplete: 'off' });
	const code = h('textarea', {
		id: 'f-code', name: 'code', rows: '6', required: true, spellcheck: 'false',
		class: 'code-input', placeholder: "['a' => \"\\u{2028}\", 'b' => \"\\xff\"]", 'data-testid': 'code-input',
	});
	const setup = h('textarea', { id: 'f-setup', name: 'setup', rows: '3', spellcheck: 'false', class: 'code-input', placeholder: 'class A { public $x = 1; }' });
	const depth = h('input', { id: 'f-depth', name: 'depth', type: 'number', min: '1', max: '2147483647', value: '512', required: true });
	const submit = h('button', { type: 'submit', class: 'primary', 'data-testid': 'submit-case' }, 'Run on both builds');
	const msg = h('div', { 'aria-live': 'polite' });
	const form = h('form', { class: 'case-form', 'data-testid': 'case-form', novalidate: false },
		h('div', { class: 'field' }, h('label', { for: 'f-title' }, 'Title'), title),
		h('div', { class: 'field' }, h('label', { for: 'f-code' }, 'Code ',
			h('span', { class: 'hint' }, 'an expression, or statements ending in ', h('code', null, 'return …;'))), code),
		h('div', { class: 'field' }, h('label', { for: 'f-setup' }, 'Setup ',
			h('span', { class: 'hint' }, 'optional, runs first in the same request (classes, functions)')), setup),
		h('fieldset', { class: 'field' }, h('legend', null, 'Flags = ', flagsValue), flagsBox),
		h('div', { class: 'field inline' }, h('label', { for: 'f-depth' }, 'Depth'), depth),
		h('div', { class: 'actions' }, submit, h('span', { class: 'hint' }, 'Ctrl+Enter submits')),
		msg);

	const checkedBoxes = () => Array.from(flagsBox.querySelectorAll('input[type=checkbox]:checked'));
	const updateFlags = () => {
		let v = 0;
		for (const x of checkedBoxes()) v |= Number(x.getAttribute('data-value'));
		flagsValue.textContent = String(v);
	};
	flagsBox.addEventListener('change', updateFlags);

	form.addEventListener('keydown', (e) => {
		if (e.key === 'Enter' && (e.ctrlKey || e.metaKey)) {
			e.preventDefault();
			form.requestSubmit();
		}
	});
	form.addEventListener('submit', (e) => {
		e.preventDefault();
		if (!code.value.trim()) {
			replace(msg, errorBox(new ApiError(0, 'bad_request', 'code is required')));
			code.focus();
			return;
		}
		const body = { code: code.value, flags: checkedBoxes().map((x) => x.value), depth: Number(depth.value) };
		if (title.value.trim()) body.title = title.value.trim();
		if (setup.value) body.setup = setup.value;
		submit.disabled = true;
		replace(msg, h('p', { class: 'loading', 'aria-busy': 'true' }, 'Running on both builds…'));
		ctx.api('/api/cases', { method: 'POST', body }).then((d) => {
			navigate(`#/cases/${d.id !== undefined ? d.id : d.case && d.case.id}`);
		}, (err) => {
			if (isAbort(err)) return;
			submit.disabled = false;
			replace(msg, errorBox(err));
		});
	});

	ctx.main.append(h('h1', null, 'Submit a case'),
		h('p', { class: 'lead' }, 'Runs one ', h('code', null, 'json_encode()'), ' call on both builds now, stores it and shows the verdict.'),
		h('section', { class: 'panel' }, form));

	const prefill = query.get('from');
	Promise.all([
		getFlags(),
		prefill ? ctx.api(`/api/cases/${encodeURIComponent(prefill)}`) : null,
	]).then(([flags, stored]) => {
		const from = stored && (stored.case || stored);
		const on = new Set();
		if (from) {
			title.value = from.title || '';
			code.value = from.code || '';
			setup.value = from.setup || '';
			depth.value = from.depth || 512;
			for (const n of from.flag_names || flagNames(from.flags || 0) || []) on.add(n);
		}
		replace(flagsBox, flags.map((f) => {
			const id = `flag-${f.name}`;
			return h('label', { class: 'check', for: id, title: `${f.name} = ${f.value}` },
				h('input', { type: 'checkbox', id, value: f.name, 'data-value': f.value, checked: on.has(f.name) }),
				' ', shortFlag(f.name), h('span', { class: 'dim' }, ` ${f.value}`));
		}));
		updateFlags();
	}, (e) => {
		if (!isAbort(e)) replace(flagsBox, errorBox(e));
	});
	code.focus();
}
