/*
 * Building the page's DOM.  Everything is made with h(), never from HTML
 * strings: text a case printed is only ever a text node, so nothing it
 * contains can become markup.  Nothing here touches `document` until it is
 * called (the module is imported by node's unit tests too).
 */

/* Attributes set as properties rather than with setAttribute. */
const PROPS = new Set(['value', 'checked', 'disabled', 'required', 'selected']);

/*
 * h('a', { href: '#/', class: 'x', text: 'y', onclick: fn }, child, ...):
 * null/undefined/false attributes and children are left out; true gives an
 * empty attribute; children may be nodes, strings, numbers or arrays of them.
 */
export function h(tag, attrs, ...children) {
	const el = document.createElement(tag);
	for (const [k, v] of Object.entries(attrs || {})) {
		if (v === null || v === undefined || v === false) continue;
		if (k === 'class') el.className = v;
		else if (k === 'text') el.textContent = v;
		else if (k.startsWith('on') && typeof v === 'function') el.addEventListener(k.slice(2), v);
		else if (PROPS.has(k)) el[k] = v;
		else el.setAttribute(k, v === true ? '' : String(v));
	}
	for (const c of children) append(el, c);
	return el;
}

/* Append a child (node, text, or a nested array of them) to el. */
export function append(el, c) {
	if (c === null || c === undefined || c === false) return;
	if (Array.isArray(c)) {
		for (const x of c) append(el, x);
		return;
	}
	el.append(c instanceof Node ? c : String(c));
}

export function clear(el) {
	while (el.firstChild) el.removeChild(el.firstChild);
	return el;
}

export function replace(el, content) {
	clear(el);
	append(el, content);
	return el;
}

export function setTitle(t) {
	document.title = t ? `${t} · phpcmp` : 'phpcmp';
}
