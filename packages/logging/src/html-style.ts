/** The HTML report's stylesheet (inlined; light and dark themes follow the system). */
export const REPORT_CSS = `
:root {
  --bg: #f5f6f8; --panel: #ffffff; --panel-2: #f8f9fb; --text: #1f2328; --muted: #5f6b7a; --faint: #8b95a3;
  --border: #dfe3e8; --border-strong: #c9d0d8;
  --pass: #1a7f37; --pass-bg: #dcf5e3; --fail: #cf222e; --fail-bg: #ffe3e3; --warn: #9a6700; --warn-bg: #fff1c2;
  --info: #0969da; --info-bg: #ddf0ff; --skip: #6e7781; --skip-bg: #eef0f2; --accent: #6d4ae0; --accent-bg: #efe9ff;
  --lane-0: #6d4ae0; --lane-1: #0a7ea4; --lane-2: #bf5b04; --lane-3: #b3197a; --lane-4: #2b8a3e;
  --mono: ui-monospace, SFMono-Regular, "SF Mono", Menlo, Consolas, "Liberation Mono", "DejaVu Sans Mono", monospace;
  --sans: -apple-system, BlinkMacSystemFont, "Segoe UI", Roboto, Ubuntu, "Helvetica Neue", Arial, "Liberation Sans", system-ui, sans-serif;
  --radius: 10px; --shadow: 0 1px 2px rgba(27,31,36,.06), 0 1px 8px rgba(27,31,36,.04);
}
@media (prefers-color-scheme: dark) {
  :root {
    --bg: #0d1117; --panel: #161b22; --panel-2: #1c222b; --text: #e6edf3; --muted: #9aa5b1; --faint: #6e7781;
    --border: #2d333b; --border-strong: #3d444d;
    --pass: #3fb950; --pass-bg: #12301c; --fail: #f85149; --fail-bg: #3d1417; --warn: #d29922; --warn-bg: #3a2a08;
    --info: #58a6ff; --info-bg: #0c2d4f; --skip: #8b949e; --skip-bg: #23292f; --accent: #a68bff; --accent-bg: #2a2145;
    --lane-0: #a68bff; --lane-1: #39c5e8; --lane-2: #f0883e; --lane-3: #f778ba; --lane-4: #56d364;
    --shadow: none;
  }
}
* { box-sizing: border-box; }
html { -webkit-text-size-adjust: 100%; }
body { margin: 0; background: var(--bg); color: var(--text); font: 14px/1.45 var(--sans); }
button, input, select { font: inherit; color: inherit; }
code, pre, .mono { font-family: var(--mono); font-size: 12.5px; }
.wrap { max-width: 1240px; margin: 0 auto; padding: 28px 24px 64px; }
header.top { display: flex; align-items: flex-start; justify-content: space-between; gap: 24px; flex-wrap: wrap; }
.brand { display: flex; align-items: center; gap: 12px; }
.logo { width: 36px; height: 36px; border-radius: 9px; background: linear-gradient(135deg, var(--accent), #0a7ea4);
  display: grid; place-items: center; color: #fff; font-weight: 700; font-size: 17px; letter-spacing: -.5px; }
h1 { font-size: 21px; margin: 0; letter-spacing: -.2px; }
.sub { color: var(--muted); font-size: 13px; margin-top: 2px; }
.meta { display: flex; flex-wrap: wrap; gap: 6px; justify-content: flex-end; max-width: 640px; }
.chip { display: inline-flex; align-items: center; gap: 5px; padding: 2px 9px; border-radius: 999px; border: 1px solid var(--border);
  background: var(--panel); color: var(--muted); font-size: 12px; white-space: nowrap; }
.chip b { color: var(--text); font-weight: 600; }
.cards { display: grid; grid-template-columns: 1.25fr repeat(4, 1fr); gap: 12px; margin: 22px 0 14px; }
.card { background: var(--panel); border: 1px solid var(--border); border-radius: var(--radius); padding: 14px 16px; box-shadow: var(--shadow); }
.card .label { color: var(--muted); font-size: 12px; text-transform: uppercase; letter-spacing: .04em; font-weight: 600; }
.card .value { font-size: 26px; font-weight: 650; letter-spacing: -.5px; margin-top: 2px; }
.card .hint { color: var(--muted); font-size: 12.5px; margin-top: 2px; }
.rate { display: flex; align-items: center; gap: 14px; }
.ring { --p: 0; width: 64px; height: 64px; border-radius: 50%; flex: none;
  background: conic-gradient(var(--pass) calc(var(--p) * 1%), var(--fail-bg) 0); display: grid; place-items: center; }
.ring::after { content: ""; width: 48px; height: 48px; border-radius: 50%; background: var(--panel); grid-area: 1 / 1; }
.ring span { grid-area: 1 / 1; z-index: 1; font-weight: 700; font-size: 13px; }
.stack { display: flex; height: 8px; border-radius: 99px; overflow: hidden; background: var(--skip-bg); margin-top: 10px; }
.stack i { display: block; height: 100%; }
.s-passed { background: var(--pass); } .s-failed { background: var(--fail); } .s-error { background: #8250df; } .s-skipped { background: var(--faint); }
.groups { display: grid; grid-template-columns: 1fr 1fr; gap: 12px; margin-bottom: 14px; align-items: start; }
.group { background: var(--panel); border: 1px solid var(--border); border-radius: var(--radius); padding: 12px 14px; box-shadow: var(--shadow); }
.group h3 { margin: 0 0 8px; font-size: 12px; color: var(--muted); text-transform: uppercase; letter-spacing: .04em; }
.bars { display: flex; flex-direction: column; gap: 4px; max-height: 184px; overflow: auto; }
.bar-row { display: grid; grid-template-columns: minmax(90px, 180px) 1fr 70px; gap: 10px; align-items: center; font-size: 12.5px;
  cursor: pointer; border-radius: 6px; padding: 2px 4px; border: 0; background: none; text-align: left; }
.bar-row:hover, .bar-row.on { background: var(--accent-bg); }
.bar-row .name { overflow: hidden; text-overflow: ellipsis; white-space: nowrap; }
.bar-row .track { height: 7px; border-radius: 9px; background: var(--fail-bg); overflow: hidden; }
.bar-row .fill { height: 100%; background: var(--pass); border-radius: 9px; }
.bar-row .num { color: var(--muted); text-align: right; font-variant-numeric: tabular-nums; }
.toolbar { position: sticky; top: 0; z-index: 5; display: flex; flex-wrap: wrap; gap: 8px; align-items: center;
  padding: 10px 0; background: var(--bg); }
.search { flex: 1 1 160px; min-width: 150px; padding: 7px 12px 7px 32px; border-radius: 8px; border: 1px solid var(--border-strong);
  background: var(--panel) no-repeat 10px 50%/14px; outline: none; }
.search:focus { border-color: var(--accent); box-shadow: 0 0 0 3px var(--accent-bg); }
.search-box { position: relative; flex: 1 1 160px; display: flex; }
.search-box::before { content: "⌕"; position: absolute; left: 11px; top: 50%; transform: translateY(-52%); color: var(--faint); font-size: 16px; }
.seg { display: inline-flex; border: 1px solid var(--border-strong); border-radius: 8px; overflow: hidden; background: var(--panel); }
.seg button { border: 0; background: none; padding: 6px 11px; cursor: pointer; color: var(--muted); border-right: 1px solid var(--border); }
.seg button:last-child { border-right: 0; }
.seg button.on { background: var(--accent-bg); color: var(--text); font-weight: 600; }
.seg button .n { margin-left: 5px; font-size: 11.5px; color: var(--faint); font-variant-numeric: tabular-nums; }
select { padding: 6px 8px; border-radius: 8px; border: 1px solid var(--border-strong); background: var(--panel); max-width: 140px; }
.count { color: var(--muted); font-size: 12.5px; margin-left: auto; }
table.cases { width: 100%; border-collapse: separate; border-spacing: 0; background: var(--panel); border: 1px solid var(--border);
  border-radius: var(--radius); overflow: hidden; box-shadow: var(--shadow); }
.cases th { text-align: left; font-size: 11.5px; text-transform: uppercase; letter-spacing: .04em; color: var(--muted); font-weight: 600;
  padding: 9px 12px; background: var(--panel-2); border-bottom: 1px solid var(--border); white-space: nowrap; }
.cases td { padding: 9px 12px; border-bottom: 1px solid var(--border); vertical-align: middle; }
.cases tr.row { cursor: pointer; }
.cases tr.row:hover td { background: var(--panel-2); }
.cases tr.row.open td { background: var(--accent-bg); border-bottom-color: transparent; }
.cases td.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; color: var(--muted); }
.case-name { font-weight: 600; }
.case-id { color: var(--faint); font-family: var(--mono); font-size: 11.5px; margin-left: 6px; }
.why { color: var(--fail); font-size: 12.5px; margin-top: 2px; max-width: 560px; overflow: hidden; text-overflow: ellipsis; white-space: nowrap; }
.tag { display: inline-block; padding: 0 7px; margin: 3px 4px 0 0; border-radius: 99px; background: var(--skip-bg); color: var(--muted); font-size: 11.5px; }
.pill { display: inline-flex; align-items: center; gap: 5px; padding: 2px 9px; border-radius: 99px; font-size: 12px; font-weight: 600; white-space: nowrap; }
.pill::before { content: ""; width: 7px; height: 7px; border-radius: 50%; background: currentColor; }
.p-passed { color: var(--pass); background: var(--pass-bg); } .p-failed { color: var(--fail); background: var(--fail-bg); }
.p-error { color: #8250df; background: var(--accent-bg); } .p-skipped { color: var(--skip); background: var(--skip-bg); }
.dots { display: inline-flex; gap: 3px; flex-wrap: wrap; max-width: 120px; vertical-align: middle; }
.dot { width: 9px; height: 9px; border-radius: 3px; display: inline-block; }
.dot.passed { background: var(--pass); } .dot.failed { background: var(--fail); } .dot.error { background: #8250df; } .dot.skipped { background: var(--faint); }
.trial-count { color: var(--muted); font-size: 12px; margin-left: 6px; font-variant-numeric: tabular-nums; }
.score { display: inline-flex; align-items: center; gap: 7px; font-variant-numeric: tabular-nums; }
.meter { width: 64px; height: 6px; background: var(--skip-bg); border-radius: 9px; overflow: hidden; display: inline-block; }
.meter i { display: block; height: 100%; border-radius: 9px; }
.sev { display: inline-flex; align-items: center; gap: 3px; font-size: 12px; font-weight: 600; padding: 1px 7px; border-radius: 99px; margin-right: 4px; }
.sev-error { color: var(--fail); background: var(--fail-bg); } .sev-warning { color: var(--warn); background: var(--warn-bg); }
.sev-info { color: var(--info); background: var(--info-bg); }
.sev-expected { color: var(--muted); background: var(--skip-bg); }
.none { color: var(--faint); }
tr.detail > td { padding: 0 !important; background: var(--panel-2); }
.detail-body { padding: 16px 18px 20px; border-left: 3px solid var(--accent); }
.detail-head { display: flex; flex-wrap: wrap; gap: 8px 16px; align-items: baseline; margin-bottom: 12px; color: var(--muted); font-size: 12.5px; }
.detail-head .desc { color: var(--text); font-size: 13.5px; flex-basis: 100%; }
.error-box { background: var(--fail-bg); color: var(--fail); border-radius: 8px; padding: 8px 12px; margin-bottom: 12px; white-space: pre-wrap; font-family: var(--mono); font-size: 12.5px; }
.panels { display: grid; grid-template-columns: 1fr 1fr 1.3fr; gap: 12px; margin-bottom: 14px; }
.panel { background: var(--panel); border: 1px solid var(--border); border-radius: var(--radius); padding: 12px 14px; min-width: 0; }
.panel h4 { margin: 0 0 8px; font-size: 12px; color: var(--muted); text-transform: uppercase; letter-spacing: .04em; }
.kv { display: grid; grid-template-columns: auto 1fr; gap: 3px 14px; font-size: 13px; }
.kv dt { color: var(--muted); } .kv dd { margin: 0; font-variant-numeric: tabular-nums; font-weight: 600; }
.score-row { display: grid; grid-template-columns: 1fr 90px 52px 18px; gap: 8px; align-items: center; font-size: 13px; padding: 2px 0; }
.score-row .track { position: relative; height: 7px; background: var(--skip-bg); border-radius: 9px; }
.score-row .track i { position: absolute; inset: 0 auto 0 0; border-radius: 9px; }
.score-row .track b { position: absolute; top: -3px; bottom: -3px; width: 2px; background: var(--text); opacity: .55; }
.ok { color: var(--pass); } .bad { color: var(--fail); }
.vlist { display: flex; flex-direction: column; gap: 6px; max-height: 220px; overflow: auto; }
.vitem { border: 1px solid var(--border); border-left-width: 3px; border-radius: 8px; padding: 6px 9px; font-size: 12.5px; background: var(--panel); }
.vitem.expected { border-left-color: var(--faint); } .vitem.error { border-left-color: var(--fail); } .vitem.warning { border-left-color: var(--warn); } .vitem.info { border-left-color: var(--info); }
.vitem .rule { font-family: var(--mono); font-size: 12px; font-weight: 600; }
.vitem .msg { margin-top: 2px; }
.vitem button { margin-top: 4px; }
.linkish { border: 0; background: none; padding: 0; color: var(--accent); cursor: pointer; font-size: 12px; }
.linkish:hover { text-decoration: underline; }
.tabs { display: flex; gap: 6px; flex-wrap: wrap; margin: 4px 0 10px; align-items: center; }
.tabs .label { color: var(--muted); font-size: 12px; text-transform: uppercase; letter-spacing: .04em; font-weight: 600; margin-right: 4px; }
.tab { border: 1px solid var(--border-strong); background: var(--panel); border-radius: 8px; padding: 4px 10px; cursor: pointer; font-size: 12.5px;
  display: inline-flex; align-items: center; gap: 6px; }
.tab.on { border-color: var(--accent); box-shadow: 0 0 0 2px var(--accent-bg); font-weight: 600; }
.timeline { background: var(--panel); border: 1px solid var(--border); border-radius: var(--radius); padding: 10px 12px; }
.tl-head { display: flex; gap: 14px; flex-wrap: wrap; color: var(--muted); font-size: 12.5px; margin-bottom: 8px; }
.agent { --lane: var(--lane-0); border-left: 3px solid var(--lane); border-radius: 4px 8px 8px 4px; background: var(--panel); margin: 4px 0; }
.agent.d1 { --lane: var(--lane-1); } .agent.d2 { --lane: var(--lane-2); } .agent.d3 { --lane: var(--lane-3); } .agent.d4 { --lane: var(--lane-4); }
.agent-head { display: flex; flex-wrap: wrap; gap: 4px 10px; align-items: center; padding: 6px 10px; font-size: 12.5px; color: var(--muted);
  background: color-mix(in srgb, var(--lane) 8%, transparent); border-radius: 0 8px 0 0; }
.agent-head .who { color: var(--lane); font-weight: 700; font-size: 13px; }
.agent-head .aid { font-family: var(--mono); font-size: 11.5px; }
.agent-prompt { padding: 4px 10px 6px; font-size: 12.5px; color: var(--muted); font-style: italic; white-space: pre-wrap; max-height: 4.5em; overflow: hidden; }
.items { padding: 2px 0 4px 8px; }
.item { border-radius: 6px; margin: 1px 0; }
.item.violated { background: color-mix(in srgb, var(--fail) 7%, transparent); outline: 1px solid color-mix(in srgb, var(--fail) 45%, transparent); }
.item.violated.only-expected { background: color-mix(in srgb, var(--faint) 8%, transparent); outline: 1px dashed var(--border-strong); }
.item.violated.only-warning { background: color-mix(in srgb, var(--warn) 8%, transparent); outline-color: color-mix(in srgb, var(--warn) 45%, transparent); }
.item.flash { animation: flash 1.6s ease-out; }
@keyframes flash { 0%, 30% { box-shadow: 0 0 0 3px var(--accent); } 100% { box-shadow: 0 0 0 0 transparent; } }
.call { display: grid; grid-template-columns: 16px 54px minmax(70px, auto) 1fr 70px 150px; gap: 8px; align-items: center; padding: 4px 8px;
  cursor: pointer; font-size: 13px; border-radius: 6px; }
.call:hover { background: var(--panel-2); }
.call .st { width: 10px; height: 10px; border-radius: 50%; }
.st.ok { background: var(--pass); } .st.error { background: var(--fail); } .st.denied { background: var(--warn); } .st.incomplete { background: var(--faint); }
.call .at { color: var(--faint); font-size: 11.5px; font-variant-numeric: tabular-nums; text-align: right; font-family: var(--mono); }
.call .tool { font-weight: 650; font-family: var(--mono); font-size: 12.5px; }
.call .sum { font-family: var(--mono); font-size: 12px; color: var(--muted); overflow: hidden; text-overflow: ellipsis; white-space: nowrap; min-width: 0; }
.call .dur { text-align: right; color: var(--muted); font-size: 12px; font-variant-numeric: tabular-nums; }
.wf { display: block; position: relative; height: 8px; background: var(--panel-2); border-radius: 4px; }
.wf i { position: absolute; top: 0; bottom: 0; min-width: 2px; border-radius: 4px; background: var(--lane); opacity: .75; }
.label-denied, .label-error { font-size: 11px; font-weight: 700; text-transform: uppercase; margin-left: 6px; }
.label-denied { color: var(--warn); } .label-error { color: var(--fail); }
.io { display: grid; grid-template-columns: 1fr 1fr; gap: 8px; padding: 4px 8px 8px 32px; }
.io pre { margin: 0; background: var(--panel-2); border: 1px solid var(--border); border-radius: 6px; padding: 8px 10px; max-height: 320px;
  overflow: auto; white-space: pre-wrap; word-break: break-word; }
.io .cap { font-size: 11px; color: var(--muted); text-transform: uppercase; letter-spacing: .04em; margin-bottom: 3px; font-weight: 600; }
.msg-item { display: grid; grid-template-columns: 16px 1fr; gap: 8px; padding: 4px 8px; font-size: 13px; color: var(--muted); }
.msg-item .ic { color: var(--faint); text-align: center; }
.msg-item .tx { white-space: pre-wrap; word-break: break-word; max-height: 4.4em; overflow: hidden; cursor: pointer; }
.msg-item .tx.full { max-height: none; }
.msg-item.user .tx { color: var(--text); }
.final { margin: 6px 8px 2px; padding: 7px 10px; border-radius: 8px; font-size: 12.5px; background: var(--pass-bg); color: var(--pass); }
.final.err { background: var(--fail-bg); color: var(--fail); }
.final .final-text { margin-top: 3px; color: var(--text); white-space: pre-wrap; }
.vbadges { padding: 0 8px 5px 32px; display: flex; flex-direction: column; gap: 3px; }
.vbadge { font-size: 12px; display: flex; gap: 6px; align-items: baseline; }
.vbadge .rule { font-family: var(--mono); font-weight: 600; }
.child { margin: 2px 0 6px 24px; }
.empty { color: var(--muted); padding: 22px; text-align: center; }
.foot { margin-top: 18px; color: var(--faint); font-size: 12px; text-align: center; }
kbd { font-family: var(--mono); font-size: 11px; border: 1px solid var(--border-strong); border-bottom-width: 2px; border-radius: 4px; padding: 0 4px; }
.static-cases { width: 100%; border-collapse: collapse; background: var(--panel); }
.static-cases th, .static-cases td { text-align: left; vertical-align: top; padding: 6px 10px; border-bottom: 1px solid var(--border); }
.static-cases .verdict { font-weight: 600; } .v-passed { color: var(--pass); } .v-failed, .v-error { color: var(--fail); } .v-skipped { color: var(--skip); }
.static-failures { margin: 0; padding-left: 18px; } .static-failures .case-error { color: var(--muted); }
@media (max-width: 900px) {
  .cards { grid-template-columns: 1fr 1fr; } .groups, .panels { grid-template-columns: 1fr; }
  .call { grid-template-columns: 16px 1fr 60px; } .call .at, .call .wf, .call .sum { display: none; }
  .io { grid-template-columns: 1fr; padding-left: 8px; }
  .hide-sm { display: none; }
}
`;
