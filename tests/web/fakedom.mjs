// A minimal stand-in for the browser's DOM, enough for h() and the
// components that build elements with it (no HTML parser at all: setting
// innerHTML or outerHTML throws, so a test fails if anything tries).
class FakeNode {
	constructor() {
		this.parentNode = null;
		this.childNodes = [];
	}

	get firstChild() { return this.childNodes[0] || null; }

	append(...nodes) {
		for (const n of nodes) {
			const node = n instanceof FakeNode ? n : new FakeText(String(n));
			if (node instanceof FakeFragment) {
				for (const c of [...node.childNodes]) this.append(c);
				node.childNodes = [];
				continue;
			}
			if (node.parentNode) node.parentNode.removeChild(node);
			node.parentNode = this;
			this.childNodes.push(node);
		}
	}

	removeChild(n) {
		this.childNodes = this.childNodes.filter((c) => c !== n);
		n.parentNode = null;
		return n;
	}

	get textContent() { return this.childNodes.map((c) => c.textContent).join(''); }

	set textContent(t) {
		this.childNodes = [];
		if (t !== '') this.append(String(t));
	}
}

class FakeText extends FakeNode {
	constructor(data) {
		super();
		this.data = data;
	}

	get textContent() { return this.data; }
}

class FakeFragment extends FakeNode {}

class FakeElement extends FakeNode {
	constructor(tag) {
		super();
		this.tagName = tag.toUpperCase();
		this.attributes = new Map();
		this.listeners = {};
		const props = new Map();
		this.style = { setProperty: (k, v) => props.set(k, v), props };
		const el = this;
		this.classList = {
			toggle(c, on) {
				const s = new Set(el.className.split(' ').filter(Boolean));
				if (on) s.add(c); else s.delete(c);
				el.className = [...s].join(' ');
			},
			contains: (c) => el.className.split(' ').includes(c),
		};
		this.className = '';
	}

	setAttribute(k, v) { this.attributes.set(k, String(v)); }

	getAttribute(k) {
		if (k === 'class') return this.className;
		return this.attributes.has(k) ? this.attributes.get(k) : null;
	}

	addEventListener(type, fn) { (this.listeners[type] ||= []).push(fn); }

	set innerHTML(v) { throw new Error(`innerHTML set to ${v}`); }

	set outerHTML(v) { throw new Error(`outerHTML set to ${v}`); }

	insertAdjacentHTML() { throw new Error('insertAdjacentHTML'); }

	/* Elements below this one (depth first) that match test(el). */
	findAll(test) {
		const out = [];
		const walk = (n) => {
			for (const c of n.childNodes) {
				if (c instanceof FakeElement) {
					if (test(c)) out.push(c);
					walk(c);
				}
			}
		};
		walk(this);
		return out;
	}

	byTestId(id) { return this.findAll((e) => e.getAttribute('data-testid') === id); }
}

/* Install the fake as the globals document and Node; returns the document. */
export function installFakeDom() {
	const document = {
		createElement: (tag) => new FakeElement(tag),
		createDocumentFragment: () => new FakeFragment(),
		title: '',
	};
	globalThis.document = document;
	globalThis.Node = FakeNode;
	return document;
}

export { FakeElement, FakeText };
