// Kite's dashboard: the DAG pages (loaded before app.js, whose helpers h,
// s, api, table, num and errorList these use when they are called). The
// collector lays each DAG out (GET /v1/dashboard/dag); this draws it.
'use strict';

const DAG_STATES = [
  ['done', 'done'], ['running', 'running'], ['idle', 'idle or held'], ['script', 'PRE/POST script'],
  ['failed', 'failed'], ['futile', 'futile'], ['removed', 'removed'], ['notready', 'not ready'],
];

// dagStates is DAG_STATES for a DAG running or finished: in a finished
// one, a node not ready never ran.
function dagStates(finished) {
  return DAG_STATES.map(([k, label]) => [k, finished && k === 'notready' ? 'never ran' : label]);
}

function dagLink(d) {
  return h('a', { href: '#dag/' + encodeURIComponent(d.schedd) + '/' + d.id, class: 'dag-link' }, String(d.id));
}

function dagLegend(counts, finished) {
  return h('div', { class: 'legend', id: 'dag-legend' },
    dagStates(finished).map(([k, label]) => h('span', {}, h('i', { class: 'dag-' + k }), `${label} ${counts[k] || 0}`)));
}

// dagPicture draws a laid-out DAG: an edge from the bottom of each parent
// to the top of each child, a box per node coloured by its state.
function dagPicture(g) {
  const W = 120, H = 34;
  const svg = s('svg', { id: 'dag-graph', class: 'chart dag', width: g.width, height: g.height,
    viewBox: `0 0 ${g.width} ${g.height}`, role: 'img', 'aria-label': 'DAG ' + g.id });
  for (const [p, c] of g.edges) {
    const a = g.nodes[p], b = g.nodes[c];
    svg.append(s('line', { class: 'dag-edge', x1: a.x + W / 2, y1: a.y + H, x2: b.x + W / 2, y2: b.y }));
  }
  for (const n of g.nodes) {
    const label = n.name.length > 16 ? n.name.slice(0, 15) + '…' : n.name;
    const tip = n.name + ': ' + n.state + (n.cluster ? ' (job ' + n.cluster + ')' : '') +
      (n.retries ? ', retried ' + n.retries : '') + (n.detail ? ', ' + n.detail : '');
    svg.append(s('g', { class: 'dag-node dag-' + n.state, 'data-name': n.name, 'data-state': n.state },
      s('title', {}, tip),
      s('rect', { x: n.x, y: n.y, width: W, height: H, rx: 4 }),
      s('text', { x: n.x + W / 2, y: n.y + H / 2 + 4, 'text-anchor': 'middle' }, label)));
  }
  return svg;
}

// dagLayers is a DAG too large to draw: its nodes counted by depth and
// state (the last layer of a very deep DAG holds the deeper nodes too).
function dagLayers(g) {
  const rows = g.layers.map(l => h('tr', {}, h('td', { class: 'num' }, String(l.depth) + (l.deeper ? ' and deeper' : '')),
    DAG_STATES.map(([k]) => h('td', { class: 'num' }, num(l.states[k] || 0)))));
  return table('dag-layers', [{ label: 'Depth', num: true }, ...dagStates(g.finished).map(([, label]) => ({ label, num: true }))], rows);
}

// dagRunning is the table of the DAGs that run.
function dagRunning(dags) {
  const rows = dags.map(d => h('tr', { 'data-id': d.id },
    h('td', {}, dagLink(d)), h('td', {}, d.schedd), h('td', {}, d.owner), h('td', { class: 'expr' }, d.file),
    h('td', {}, d.held ? 'held' : 'running'),
    ...[d.total, d.done, d.queued, d.failed, d.futile, d.unready].map(x => h('td', { class: 'num' }, num(x)))));
  return table('dag-list', ['ID', 'Schedd', 'Owner', 'DAG file', 'State',
    ...['Nodes', 'Done', 'Queued', 'Failed', 'Futile', 'Not ready'].map(label => ({ label, num: true }))], rows);
}

// dagFinished is the table of the DAGs each schedd finished last, newest
// first, with their final status; each links to its final graph.
function dagFinished(dags) {
  const rows = dags.map(d => h('tr', { 'data-id': d.id },
    h('td', {}, dagLink(d)), h('td', {}, d.schedd), h('td', {}, d.owner), h('td', { class: 'expr' }, d.file),
    h('td', { class: 'dag-result dag-result-' + d.result }, d.result), h('td', { class: 'num' }, String(d.exit_code || 0)),
    ...[d.total, d.done, d.failed, d.futile].map(x => h('td', { class: 'num' }, num(x)))));
  return table('dag-finished', ['ID', 'Schedd', 'Owner', 'DAG file', 'Result', { label: 'Exit code', num: true },
    ...['Nodes', 'Done', 'Failed', 'Futile'].map(label => ({ label, num: true }))], rows);
}

const DAG_VIEWS = {
  async dags() {
    const list = await api('dags');
    const out = [h('h2', {}, 'DAGs'), errorList(list.errors)];
    const running = list.dags.filter(d => !d.finished), finished = list.dags.filter(d => d.finished);
    if (running.length === 0) {
      out.push(h('p', { class: 'muted', id: 'no-dags' }, 'No DAG is in any schedd\'s queue (kite submit_dag queues one).'));
    } else {
      out.push(dagRunning(running));
    }
    if (finished.length > 0) {
      out.push(h('h3', {}, 'Finished last'), dagFinished(finished));
    }
    return out;
  },

  async dag(arg) {
    const i = arg.lastIndexOf('/');
    const schedd = arg.slice(0, i), id = arg.slice(i + 1);
    const g = await api('dag?schedd=' + encodeURIComponent(schedd) + '&id=' + encodeURIComponent(id));
    const end = g.finished ? `; finished: ${g.result}, exit code ${g.exit_code || 0}` : (g.held ? '; held' : '');
    const out = [
      h('h2', {}, 'DAG ', String(g.id), ' ', h('span', { class: 'muted' }, g.file)),
      h('p', { class: 'muted', id: 'dag-status' }, `Schedd ${g.schedd}; owner ${g.owner}; ${g.total} nodes, ${g.done} done` + end),
      dagLegend(g.states, g.finished),
    ];
    if (g.missing) {
      out.push(h('p', { id: 'dag-not-kept' }, 'The schedd no longer keeps this DAG\'s nodes: it keeps the graphs of the DAGs it finished last.'));
    } else if (g.layers) {
      out.push(h('p', { id: 'dag-too-large' }, `The DAG has more than ${num(g.limit)} nodes: its nodes are counted by depth (the longest path from a node without parents) and state, not drawn.`));
      out.push(dagLayers(g));
    } else {
      out.push(h('div', { class: 'dag-wrap' }, dagPicture(g)));
    }
    return out;
  },
};
