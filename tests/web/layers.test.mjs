// The page's module layers, read from the import statements of web/js/:
// pure helpers use nothing with a DOM, components no views, views no
// other views, nothing imports the entry point, no cycles; and no module
// ever hands a string to an HTML parser.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { WEB } from './helper.mjs';

/* Every module under web/js/ (relative path) -> the modules it imports. */
function importGraph() {
	const graph = new Map();
	const walk = (dir) => {
		for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
			const p = path.join(dir, e.name);
			if (e.isDirectory()) walk(p);
			else if (e.name.endsWith('.js')) {
				const src = fs.readFileSync(p, 'utf8');
				const deps = [...src.matchAll(/^\s*import\s[^'"]*['"]([^'"]+)['"]/gm), ...src.matchAll(/\bimport\(\s*['"]([^'"]+)['"]/g)]
					.map((m) => path.relative(WEB, path.resolve(path.dirname(p), m[1])));
				graph.set(path.relative(WEB, p), { deps, src });
			}
		}
	};
	walk(WEB);
	return graph;
}

const graph = importGraph();
const PURE = ['bytes.js', 'format.js', 'builds.js', 'measure.js', 'triage.js', 'export.js'];
const layer = (m) => (PURE.includes(m) ? 'pure' : m.startsWith('views/') ? 'view' : m.startsWith('components/') ? 'component'
	: m === 'main.js' ? 'main' : m === 'routes.js' ? 'routes' : 'helper');

test('every import names a module that exists, relative, with its .js suffix', () => {
	assert.ok(graph.size >= 20, `${graph.size} modules`);
	for (const [m, { deps }] of graph)
		for (const d of deps) assert.ok(graph.has(d), `${m} imports ${d}, which is not a module of web/js/`);
});

test('layers: pure helpers -> helpers -> components -> views -> routes -> main', () => {
	const allowed = {
		pure: ['pure'],
		helper: ['pure', 'helper'],
		component: ['pure', 'helper', 'component'],
		view: ['pure', 'helper', 'component'],
		routes: ['view'],
		main: ['helper', 'routes'],
	};
	for (const [m, { deps }] of graph)
		for (const d of deps)
			assert.ok(allowed[layer(m)].includes(layer(d)), `${m} (${layer(m)}) must not import ${d} (${layer(d)})`);
	for (const m of PURE) {
		assert.ok(graph.has(m), m);
		assert.doesNotMatch(graph.get(m).src, /\b(document|window|location|localStorage|fetch)\b\s*[.(]/, `${m} uses no browser API`);
	}
});

test('no import cycles', () => {
	const state = new Map();
	const visit = (m, trail) => {
		if (state.get(m) === 'done') return;
		assert.notEqual(state.get(m), 'open', `cycle: ${[...trail, m].join(' -> ')}`);
		state.set(m, 'open');
		for (const d of graph.get(m).deps) visit(d, [...trail, m]);
		state.set(m, 'done');
	};
	for (const m of graph.keys()) visit(m, []);
});

test('nothing is ever parsed as HTML: no innerHTML, outerHTML, insertAdjacentHTML, document.write, DOMParser', () => {
	for (const [m, { src }] of graph)
		assert.doesNotMatch(src, /\.(innerHTML|outerHTML)\b|insertAdjacentHTML|document\.write|DOMParser|createContextualFragment|\beval\(|new Function\(/, m);
	const html = fs.readFileSync(path.join(WEB, '../index.html'), 'utf8');
	assert.match(html, /<script type="module" src="js\/main\.js"><\/script>/);
	assert.doesNotMatch(html, /<script>[^<]/, 'no inline script');
});
