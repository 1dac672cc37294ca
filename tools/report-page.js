/* SPDX-License-Identifier: MIT */
/*
 * The script of `sysgate report --html` (tools/report-html.c embeds it).
 * It draws the JSON block #report-data: findings first, the process tree
 * whose nodes open that process's calls, search, filters by kind and
 * outcome, folded noise, the timeline and the tables.
 *
 * Security: every string of the data comes from the traced program.  It
 * goes into the page as text only (textContent, createTextNode, SVG text
 * nodes), never through innerHTML or an attribute that runs code.
 */
'use strict';
(function () {
	var D = JSON.parse(document.getElementById('report-data').textContent);
	var SVGNS = 'http://www.w3.org/2000/svg';
	/* Call rows drawn at once; more are counted, never silently cut. */
	var MAX_SHOWN = 2000;
	/* Processes drawn in the timeline. */
	var MAX_LANES = 2000;
	/* A call row; NODE is its process instance (processes[].node): a pid
	 * the kernel reused within the run is two processes. */
	var SEQ = 0, MS = 1, PID = 2, TID = 3, CALL = 4, ARGS = 5, RES = 6,
		KIND = 7, OUT = 8, FOLD = 9, NODE = 10;
	var KINDS = ['file', 'exec', 'network', 'signal', 'process', 'other'];
	var OUTCOMES = ['allowed', 'denied', 'killed', 'error', 'redirected',
		'would-deny', 'unknown', 'event'];
	var OUTCOME_TITLE = {
		allowed: 'allowed', denied: 'denied', killed: 'killed',
		'would-deny': 'would deny (permissive)',
		error: 'errors', redirected: 'redirected',
		unknown: 'no result', event: 'process events'
	};
	var state = { node: null, q: '', kinds: {}, outcomes: {},
		noise: D.all, mark: null };
	var app = document.getElementById('app');
	var texts = [];

	function el(tag, cls, text) {
		var e = document.createElement(tag);

		if (cls)
			e.className = cls;
		if (text !== undefined && text !== null)
			e.textContent = String(text);
		return e;
	}

	function add(parent, child) {
		parent.appendChild(child);
		return child;
	}

	/* Opened by a click, or by Enter or Space once focused. */
	function clickable(e, fn) {
		e.tabIndex = 0;
		e.setAttribute('role', 'button');
		e.addEventListener('click', fn);
		e.addEventListener('keydown', function (ev) {
			if (ev.key === 'Enter' || ev.key === ' ') {
				ev.preventDefault();
				fn();
			}
		});
	}

	function svg(tag, attrs) {
		var e = document.createElementNS(SVGNS, tag);

		for (var k in attrs)
			e.setAttribute(k, String(attrs[k]));
		return e;
	}

	function rel(ms) {
		if (ms === null || ms === undefined)
			return '?';
		return '+' + (ms / 1000).toFixed(6) + 's';
	}

	function plural(n, one, many) {
		return n + ' ' + (n === 1 ? one : many);
	}

	/* A table: heads, then one row per item from cells(item). */
	function table(parent, id, heads, items, cells, rowclass) {
		var t = add(parent, el('table'));
		var tr = add(t, el('tr'));

		t.id = id;
		heads.forEach(function (h) { add(tr, el('th', null, h)); });
		items.forEach(function (it) {
			var r = add(t, el('tr', rowclass ? rowclass(it) : null));

			cells(it).forEach(function (c) {
				if (c && c.nodeType)
					add(add(r, el('td')), c);
				else
					add(r, el('td', 'm', c));
			});
		});
		return t;
	}

	function more(parent, total, shown, where) {
		if (total > shown)
			add(parent, el('p', 'notice', 'This page holds ' + shown +
				' of ' + total + ' ' + where +
				'; the text report and --json hold them all.'));
	}

	function procByNode(node) {
		for (var i = 0; i < D.processes.length; i++)
			if (D.processes[i].node === node)
				return D.processes[i];
		return null;
	}

	function procShort(p) {
		return p.pid + ' ' + p.label + ' [' + p.status + ']';
	}

	/* ---- header and findings ---- */

	function drawHeader() {
		add(app, el('h1', null, 'sysgate report'));
		if (!D.verified) {
			var w = add(app, el('p', 'warn',
				'WARNING: this trail does not verify: ' + D.why));
			w.id = 'verify-warning';
		}
	}

	function drawFindings() {
		var F = D.findings, box = add(app, el('section'));
		var list = F.anomalies;

		box.id = 'findings';
		add(box, el('h2', null, 'Findings'));
		add(box, el('p', F.failed ? 'bad' : 'ok', 'The run ' +
			(F.failed ? 'failed' : 'succeeded') + ' (' + D.result + ')' +
			(!F.failed && !list.length ? ' with no denials.' : '')));
		if (!F.failed && !list.length)
			box.className = 'good';
		if (F.failed && F.chain_nodes.length) {
			var c = add(box, el('p', 'm', 'failed in: '));

			c.id = 'chain';
			F.chain_nodes.forEach(function (node, i) {
				var p = procByNode(node);
				var s = add(c, el('span', 'node', p ? procShort(p) :
					F.chain[i]));

				clickable(s, function () { select(node, null); });
				if (i + 1 < F.chain_nodes.length)
					add(c, document.createTextNode(' > '));
			});
		}
		var ol = add(box, el('ol'));
		list.forEach(function (a) {
			var li = add(ol, el('li', 'finding m'));

			add(li, el('span', 'kind', a.kind + ':'));
			add(li, el('span', 'ftext', a.text));
			li.title = 'show record ' + a.seq + ' among the calls of its process';
			clickable(li, function () { select(a.node, a.seq); });
			drawOutput(li, a.output);
		});
		if (F.failed && !list.length)
			add(box, el('p', 'st', '(no denial, limit, signal, failed exit or missing file recorded)'));
	}

	/* The command's last lines of output before a finding. */
	function drawOutput(parent, lines) {
		if (!lines || !lines.length)
			return;
		var box = add(parent, el('div', 'output'));

		add(box, el('div', 'st', 'output before it:'));
		lines.forEach(function (l) {
			add(box, el('div', 'oline ' + (l.stream === 'stderr' ? 'err' :
				'out'), (l.stream === 'stderr' ? 'err| ' : 'out| ') +
				l.text));
		});
	}

	function drawSummary() {
		table(app, 'summary', [], D.head, function (kv) {
			return [kv[0], kv[1]];
		}).className = 'kv';
	}

	/* ---- the process tree and the calls ---- */

	function drawTree(parent) {
		var ul = add(parent, el('ul', 'tree')), stack = [];

		ul.id = 'tree';
		D.processes.forEach(function (p, lane) {
			var into = ul;

			while (stack.length &&
			       stack[stack.length - 1].node !== p.parent_node)
				stack.pop();
			if (stack.length) {
				var top = stack[stack.length - 1];

				if (!top.kids)
					top.kids = add(top.li, el('ul'));
				into = top.kids;
			}
			var li = add(into, el('li', 'proc'));
			var node = add(li, el('span', 'node'));

			li.id = 'p' + p.pid + '-' + lane;
			node.dataset.pid = String(p.pid);
			node.dataset.node = String(p.node);
			add(node, el('span', 'pid', p.pid));
			add(node, document.createTextNode(' ' +
				(p.forked ? '(fork) ' : '') + p.label + ' '));
			add(node, el('span', 'st', '[' + p.status + ']'));
			if (p.denials)
				add(node, el('span', 'den', ' ' + p.denials + ' denied'));
			clickable(node, function () { select(p.node, null); });
			stack.push({ node: p.node, li: li, kids: null });
		});
	}

	function checkbox(parent, cls, value, title, on) {
		var l = add(parent, el('label'));
		var c = add(l, el('input'));

		c.type = 'checkbox';
		c.className = cls;
		c.value = value;
		c.checked = on;
		add(l, document.createTextNode(' ' + title));
		c.addEventListener('change', function () { render(); });
		return c;
	}

	function drawControls(parent) {
		var ctl = add(parent, el('div')), counts = { k: {}, o: {} };
		var kinds, outs;

		ctl.id = 'controls';
		D.calls.forEach(function (r) {
			counts.k[r[KIND]] = (counts.k[r[KIND]] || 0) + 1;
			counts.o[r[OUT]] = (counts.o[r[OUT]] || 0) + 1;
		});
		var s = add(ctl, el('input'));
		s.id = 'search';
		s.type = 'search';
		s.placeholder = 'search calls, paths, results';
		s.addEventListener('input', function () { render(); });
		kinds = add(ctl, el('fieldset'));
		kinds.id = 'kinds';
		add(kinds, el('legend', null, 'kind'));
		KINDS.forEach(function (k) {
			checkbox(kinds, 'f-kind', k, k + ' (' + (counts.k[k] || 0) + ')',
				true);
		});
		outs = add(ctl, el('fieldset'));
		outs.id = 'outcomes';
		add(outs, el('legend', null, 'outcome'));
		OUTCOMES.forEach(function (o) {
			checkbox(outs, 'f-outcome', o, OUTCOME_TITLE[o] + ' (' +
				(counts.o[o] || 0) + ')', true);
		});
		var noise = checkbox(ctl, 'f-noise', 'noise',
			'show loader, locale and runtime calls (folded)', D.all);
		noise.id = 'unfold';
		var all = add(ctl, el('button', null, 'all processes'));
		all.id = 'all-procs';
		all.addEventListener('click', function () { select(null, null); });
	}

	function drawCalls() {
		add(app, el('h2', null, 'Processes and their calls'));
		add(app, el('p', 'st', 'Click a process to see its calls in order; the search and the filters apply to the list.'));
		var box = add(app, el('div')), tb, cb;

		box.id = 'procs';
		tb = add(box, el('div'));
		tb.id = 'treebox';
		drawTree(tb);
		cb = add(box, el('div'));
		cb.id = 'callbox';
		if (D.calls.length < D.calls_total) {
			var n = add(cb, el('p', 'notice', 'This page holds ' +
				D.calls.length + ' of the run\'s ' + D.calls_total +
				' calls and events (at most ' + D.calls_cap +
				', the unfolded ones first): the others are in the trail (sysgate report TRAIL --pid N).'));
			n.id = 'calls-cap';
		}
		drawControls(cb);
		var info = add(cb, el('p', 'st'));
		info.id = 'calls-info';
		var t = add(cb, el('table'));
		t.id = 'calls';
		var h = add(add(t, el('thead')), el('tr'));
		['time', 'record', 'pid', 'call', 'arguments', 'result'].forEach(
			function (x) { add(h, el('th', null, x)); });
		add(t, el('tbody'));
		for (var i = 0; i < D.calls.length; i++) {
			var r = D.calls[i];

			texts[i] = (r[CALL] + ' ' + r[ARGS] + ' ' + r[RES]).toLowerCase();
		}
	}

	function readControls() {
		state.q = document.getElementById('search').value.toLowerCase();
		state.noise = document.getElementById('unfold').checked;
		state.kinds = {};
		state.outcomes = {};
		document.querySelectorAll('input.f-kind').forEach(function (c) {
			state.kinds[c.value] = c.checked;
		});
		document.querySelectorAll('input.f-outcome').forEach(function (c) {
			state.outcomes[c.value] = c.checked;
		});
	}

	function callRow(r) {
		var tr = el('tr', 'call ' + r[OUT] + (r[FOLD] ? ' folded' : ''));

		tr.dataset.seq = String(r[SEQ]);
		tr.dataset.pid = String(r[PID]);
		if (r[SEQ] === state.mark)
			tr.className += ' mark';
		[rel(r[MS]), r[SEQ], r[TID] !== r[PID] ? r[PID] + '/' + r[TID] :
			r[PID], r[CALL], r[ARGS], r[RES]].forEach(function (c) {
			add(tr, el('td', null, c));
		});
		return tr;
	}

	/* The call list for the selection, the search and the filters. */
	function render() {
		var body = el('tbody'), shown = 0, match = 0, folded = 0;
		var t = document.getElementById('calls');

		readControls();
		for (var i = 0; i < D.calls.length; i++) {
			var r = D.calls[i];

			if ((state.node !== null && r[NODE] !== state.node) ||
			    !state.kinds[r[KIND]] || !state.outcomes[r[OUT]] ||
			    (state.q && texts[i].indexOf(state.q) < 0))
				continue;
			if (r[FOLD] && !state.noise) {
				folded++;
				continue;
			}
			match++;
			if (shown < MAX_SHOWN) {
				add(body, callRow(r));
				shown++;
			}
		}
		t.replaceChild(body, t.tBodies[0]);
		var p = state.node === null ? null : procByNode(state.node);
		var info = (p ? 'Process ' + procShort(p) : 'All processes') + ': ' +
			plural(match, 'record', 'records') + ' shown, in trail order';
		if (folded)
			info += '; ' + folded + ' loader, locale and runtime calls folded (tick "show loader..." to see them)';
		if (match > shown)
			info += '; only the first ' + shown + ' are drawn: narrow with a process, the search or the filters';
		document.getElementById('calls-info').textContent = info + '.';
		document.querySelectorAll('#tree .node').forEach(function (n) {
			n.classList.toggle('sel', state.node !== null &&
				n.dataset.node === String(state.node));
		});
	}

	/* Open a process instance's calls (null: all), marking record seq. */
	function select(node, seq) {
		state.node = node === undefined ? null : node;
		state.mark = seq;
		render();
		var m = seq === null ? null :
			document.querySelector('#calls tr[data-seq="' + seq + '"]');
		(m || document.getElementById('procs')).scrollIntoView(
			{ block: m ? 'center' : 'start' });
	}

	/* ---- timeline and tables ---- */

	function drawTimeline() {
		var labelW = 300, plotW = 880, laneH = 18, top = 24;
		var procs = D.processes.slice(0, MAX_LANES), lanes = {};
		var h = top + procs.length * laneH + 8, span = D.duration_ms || 0;
		var s = svg('svg', { width: labelW + plotW + 20, height: h });

		function x(ms) {
			if (!span || ms === null || ms === undefined || ms < 0)
				return labelW;
			return labelW + plotW * Math.min(ms, span) / span;
		}
		function title(node, text) {
			add(node, svg('title', {})).textContent = text;
			return node;
		}
		add(app, el('h2', null, 'Timeline'));
		s.id = 'timeline';
		add(app, s);
		add(s, svg('rect', { x: 0, y: 0, width: labelW + plotW + 20,
			height: h, fill: '#fafbfd' }));
		for (var t = 0; t <= 4; t++) {
			var tx = labelW + plotW * t / 4;

			add(s, svg('line', { x1: tx, y1: top - 4, x2: tx, y2: h,
				stroke: '#dde' }));
			add(s, svg('text', { x: tx, y: 14, fill: '#556',
				'text-anchor': t === 0 ? 'start' : t === 4 ? 'end' :
				'middle' })).textContent =
				(span * t / 4 / 1000).toFixed(3) + ' s';
		}
		procs.forEach(function (p, l) {
			var y = top + l * laneH, g = add(s, svg('g', { 'class': 'lane' }));
			var x1 = x(p.start_ms), x2 = x(p.end_ms === null ? span : p.end_ms);
			var ended = p.exit !== null;
			var color = !ended ? '#9aa3b5' : p.exit.signal ? '#d9822b' :
				p.exit.code ? '#e0b341' : '#4f8fd6';
			var label = new Array(Math.min(p.depth, 10) + 1).join(' ') +
				p.pid + ' ' + p.label;

			lanes[p.node] = l;
			if (label.length > 42)
				label = label.slice(0, 39) + '...';
			var clip = add(g, svg('svg', { x: 0, y: y, width: labelW - 8,
				height: laneH }));
			add(clip, svg('text', { x: 4, y: 13,
				style: 'white-space:pre' })).textContent = label;
			var bar = add(g, svg('rect', { x: x1, y: y + 3,
				width: Math.max(x2 - x1, 2), height: laneH - 6, rx: 3,
				fill: color }));
			if (!ended) {
				bar.setAttribute('stroke', '#667');
				bar.setAttribute('stroke-dasharray', '3,2');
			}
			title(bar, 'pid ' + p.pid + ': ' + p.label + '\n' + p.status);
			g.addEventListener('click', function () { select(p.node, null); });
		});
		D.execs.forEach(function (e) {
			if (lanes[e[4]] === undefined)
				return;
			title(add(s, svg('circle', { cx: x(e[0]),
				cy: top + lanes[e[4]] * laneH + laneH / 2, r: 2.5,
				fill: '#fff', stroke: '#1d3f73' })), 'exec ' + e[2]);
		});
		D.denials.forEach(function (d) {
			if (lanes[d[9]] === undefined)
				return;
			title(add(s, svg('rect', { 'class': 'denial', x: x(d[1]) - 1.5,
				y: top + lanes[d[9]] * laneH + 1, width: 3,
				height: laneH - 2, fill: '#d0101b' })),
				'denied ' + d[4] + ' ' + d[5] + ' (rule ' + d[7] + ')');
		});
		if (D.processes.length > procs.length)
			add(app, el('p', 'notice', (D.processes.length - procs.length) +
				' more processes are not drawn.'));
		add(app, el('p', 'st', 'Bars: blue exit 0, yellow other exit codes, orange killed by a signal, grey no exit recorded; circles: exec; red marks: denials.'));
	}

	function drawTables() {
		var denials = D.denials, files = D.files, fold = 0;

		add(app, el('h2', null, 'Denials (' + D.denials_total + ')'));
		table(app, 'denials', ['record', 'time', 'pid', 'program', 'call',
			'what', 'decision', 'rule', 'stack'], denials, function (d) {
			return [d[0], rel(d[1]), d[2], d[3], d[4], d[5], d[6], d[7],
				d[8].join('\n')];
		}, function () { return 'denial'; });
		more(app, D.denials_total, denials.length, 'denials');

		add(app, el('h2', null, 'Files (' + D.files_total + ')'));
		var ft = table(app, 'files', ['access', 'path', 'as passed',
			'outcome', 'rule', 'calls', 'first seen', 'size at the end'],
			files, function (f) {
			return [f[0], f[1], f[9], f[2], f[3], f[4], 'pid ' + f[5] +
				', record ' + f[6], f[10]];
		}, function (f) {
			fold += f[8] ? 1 : 0;
			return (f[7] ? 'bad' : '') + (f[8] ? ' folded' : '');
		});
		ft.querySelectorAll('tr.folded').forEach(function (r) {
			r.hidden = true;
		});
		if (fold) {
			var b = add(app, el('button', null, 'show the ' + fold +
				' folded loader, locale and runtime paths'));
			b.id = 'files-unfold';
			b.addEventListener('click', function () {
				ft.querySelectorAll('tr.folded').forEach(function (r) {
					r.hidden = !r.hidden;
				});
			});
		}
		more(app, D.files_total, files.length, 'files');

		add(app, el('h2', null, 'Files written, size at the end (' +
			D.written_total + ')'));
		table(app, 'written', ['path', 'size at the end', 'first written',
			'record'], D.written, function (w) {
			return [w[0], w[1], 'pid ' + w[2] + ', record ' + w[3], w[4]];
		}, function (w) { return w[1] === '0 bytes' ? 'bad' : null; });
		more(app, D.written_total, D.written.length, 'files written');

		add(app, el('h2', null, 'Programs executed (' + D.execs_total + ')'));
		table(app, 'execs', ['time', 'pid', 'program', 'argv'], D.execs,
			function (e) { return [rel(e[0]), e[1], e[2], e[3]]; });
		more(app, D.execs_total, D.execs.length, 'programs executed');

		add(app, el('h2', null, 'Network (' + D.network_total + ')'));
		table(app, 'network', ['call', 'address', 'outcome', 'rule',
			'program', 'calls', 'first seen', 'DNS names, bound, peers'],
			D.network, function (n) {
			return [n[0], n[1], n[2], n[3], n[4] + ' (pid ' + n[5] + ')',
				n[6], 'record ' + n[9], n[8]];
		}, function (n) { return n[7] ? 'bad' : null; });
		more(app, D.network_total, D.network.length, 'network entries');

		add(app, el('h2', null, 'Limits reached (' + D.limits_total + ')'));
		if (!D.limits.length)
			add(app, el('p', 'st', 'None.'));
		D.limits.forEach(function (l) { add(app, el('p', 'm', l)); });
		add(app, el('p', 'st', 'Written by sysgate ' + D.version +
			' report from the audit trail; one file, nothing fetched.'));
	}

	drawHeader();
	drawFindings();
	drawSummary();
	drawCalls();
	drawTimeline();
	drawTables();
	render();
	document.body.dataset.ready = '1';
})();
