// Kite's dashboard: the DAG pages (loaded before app.js, whose helpers h,
// s, api, table, num and errorList these use when they are called). The
// collector lays each DAG out (GET /v1/dashboard/dag); this draws it.
'use strict';

const DAG_STATES = [
  ['done', 'done'], ['running', 'running'], ['idle', 'idle or held'], ['script', 'PRE/POST script'],
  ['failed', 'failed'], ['futile', 'futile'], ['notready', 'not ready'],
];

function dagLink(d) {
  return h('a', { href: '#dag/' + encodeURIComponent(d.schedd) + '/' + d.id, class: 'dag-link' }, String(d.id));
}

function dagLegend(counts) {
  return h('div', { class: 'legend', id: 'dag-legend' },
    DAG_STATES.map(([k, label]) => h('span', {}, h('i', { class: 'dag-' + k }), `${label} ${counts[k] || 0}`)));
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
// state.
function dagLayers(g) {
  const rows = g.layers.map(l => h('tr', {}, h('td', { class: 'num' }, String(l.depth)),
    DAG_STATES.map(([k]) => h('td', { class: 'num' }, num(l.states[k] || 0)))));
  return table('dag-layers', [{ label: 'Depth', num: true }, ...DAG_STATES.map(([, label]) => ({ label, num: true }))], rows);
}

const DAG_VIEWS = {
  async dags() {
    const list = await api('dags');
    const out = [h('h2', {}, 'DAGs'), errorList(list.errors)];
    if (list.dags.length === 0) {
      out.push(h('p', { class: 'muted', id: 'no-dags' }, 'No DAG is in any schedd\'s queue (kite submit_dag queues one).'));
      return out;
    }
    const rows = list.dags.map(d => h('tr', { 'data-id': d.id },
      h('td', {}, dagLink(d)), h('td', {}, d.schedd), h('td', {}, d.owner), h('td', { class: 'expr' }, d.file),
      h('td', {}, d.held ? 'held' : 'running'),
      ...[d.total, d.done, d.queued, d.failed, d.futile, d.unready].map(x => h('td', { class: 'num' }, num(x)))));
    out.push(table('dag-list', ['ID', 'Schedd', 'Owner', 'DAG file', 'State',
      ...['Nodes', 'Done', 'Queued', 'Failed', 'Futile', 'Not ready'].map(label => ({ label, num: true }))], rows));
    return out;
  },

  async dag(arg) {
    const i = arg.lastIndexOf('/');
    const schedd = arg.slice(0, i), id = arg.slice(i + 1);
    const g = await api('dag?schedd=' + encodeURIComponent(schedd) + '&id=' + encodeURIComponent(id));
    const out = [
      h('h2', {}, 'DAG ', String(g.id), ' ', h('span', { class: 'muted' }, g.file)),
      h('p', { class: 'muted' }, `Schedd ${g.schedd}; owner ${g.owner}; ${g.total} nodes, ${g.done} done` + (g.held ? '; held' : '')),
      dagLegend(g.states),
    ];
    if (g.layers) {
      out.push(h('p', { id: 'dag-too-large' }, `The DAG has more than ${num(g.limit)} nodes: its nodes are counted by depth (the longest path from a node without parents) and state, not drawn.`));
      out.push(dagLayers(g));
    } else {
      out.push(h('div', { class: 'dag-wrap' }, dagPicture(g)));
    }
    return out;
  },
};
