// php-src's run-tests.php reading of a .phpt (TestFile::readFile in
// run-tests.php of PHP 8.2), line for line: lines end at "\n" (fgets); a
// line matching /^--([_A-Z]+)--/ starts a section whatever follows on it
// (an unknown or duplicated one borks the test); inside FILE, FILEEOF and
// FILE_EXTERNAL a line matching /^===DONE===\s*$/ ends the code and the
// lines after it are dropped.  Returns {order, sections} or throws the
// BorkageException's message.  Binary-safe: works on latin1 strings.
export const ALLOWED_SECTIONS = [
	'EXPECT', 'EXPECTF', 'EXPECTREGEX', 'EXPECTREGEX_EXTERNAL', 'EXPECT_EXTERNAL', 'EXPECTF_EXTERNAL', 'EXPECTHEADERS',
	'POST', 'POST_RAW', 'GZIP_POST', 'DEFLATE_POST', 'PUT', 'GET', 'COOKIE', 'ARGS',
	'FILE', 'FILEEOF', 'FILE_EXTERNAL', 'REDIRECTTEST',
	'CAPTURE_STDIO', 'STDIN', 'CGI', 'PHPDBG',
	'INI', 'ENV', 'EXTENSIONS',
	'SKIPIF', 'XFAIL', 'XLEAK', 'CLEAN',
	'CREDITS', 'DESCRIPTION', 'CONFLICTS', 'WHITESPACE_SENSITIVE',
	'FLAKY',
];

export function parsePhpt(input) {
	const text = Buffer.isBuffer(input) ? input.toString('latin1') : input;
	const lines = text.match(/[^\n]*\n|[^\n]+$/g) || [];
	if (lines.length === 0) throw new Error('empty test');
	if (!lines[0].startsWith('--TEST--')) throw new Error('tests must start with --TEST--');
	const sections = { TEST: '' };
	const order = ['TEST'];
	let section = 'TEST', secfile = false, secdone = false;
	for (const line of lines.slice(1)) {
		const m = /^--([_A-Z]+)--/.exec(line);
		if (m) {
			section = m[1];
			if (sections[section]) throw new Error(`duplicated ${section} section`);
			if (!ALLOWED_SECTIONS.includes(section)) throw new Error(`Unknown section "${section}"`);
			sections[section] = '';
			order.push(section);
			secfile = ['FILE', 'FILEEOF', 'FILE_EXTERNAL'].includes(section);
			secdone = false;
			continue;
		}
		if (!secdone) sections[section] += line;
		if (secfile && /^===DONE===[ \t\n\r\v\f]*$/.test(line)) secdone = true;
	}
	return { order, sections };
}
