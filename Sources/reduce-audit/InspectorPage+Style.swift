extension InspectorPage {
  /// The page's style sheet.
  static let style = #"""
    :root {
      --bg: #f6f7f9; --panel: #ffffff; --ink: #1d232b; --muted: #5d6875; --line: #dde2e8;
      --accent: #2f5fb3; --ok: #1d7a46; --ok-bg: #e3f4ea; --bad: #b42318; --bad-bg: #fde8e6;
      --warn: #8a5a00; --warn-bg: #fff3d6; --snap: #3c4fb0; --snap-bg: #e9ecfb;
      --select: #dbe7fb; --mono: ui-monospace, "SFMono-Regular", "DejaVu Sans Mono", Menlo, Consolas, monospace;
    }
    * { box-sizing: border-box; }
    html, body { margin: 0; height: 100%; }
    body {
      font: 14px/1.4 system-ui, -apple-system, "Segoe UI", "DejaVu Sans", Roboto, sans-serif;
      color: var(--ink); background: var(--bg); display: flex; flex-direction: column;
    }
    header {
      display: flex; align-items: center; gap: 14px; padding: 10px 16px;
      background: #1f2937; color: #f3f4f6; flex: none; min-height: 52px;
    }
    header h1 { font-size: 17px; margin: 0; font-weight: 600; white-space: nowrap; }
    .names {
      font-family: var(--mono); font-size: 12.5px; color: #cbd5e1; overflow: hidden;
      text-overflow: ellipsis; white-space: nowrap; min-width: 0; flex: 1;
    }
    .badge {
      padding: 4px 10px; border-radius: 999px; font-weight: 600; font-size: 13px;
      white-space: nowrap; max-width: 52vw; overflow: hidden; text-overflow: ellipsis;
    }
    .badge.pending { background: #374151; color: #e5e7eb; }
    .badge.intact { background: var(--ok-bg); color: var(--ok); }
    .badge.broken { background: var(--bad-bg); color: var(--bad); }
    .badge.torn, .badge.unavailable { background: var(--warn-bg); color: var(--warn); }
    button {
      font: inherit; font-size: 13px; padding: 5px 10px; border-radius: 6px; cursor: pointer;
      border: 1px solid var(--line); background: var(--panel); color: var(--ink);
    }
    header button { background: var(--bad); color: #fff; border-color: var(--bad); }
    .hidden { display: none !important; }
    main {
      flex: 1; min-height: 0; display: grid; grid-template-columns: 250px minmax(0, 1fr) 440px;
    }
    aside {
      padding: 14px; overflow: auto; border-right: 1px solid var(--line); background: var(--panel);
    }
    aside label {
      display: block; font-size: 12px; font-weight: 600; color: var(--muted); margin-bottom: 10px;
      text-transform: uppercase; letter-spacing: .03em;
    }
    aside select, aside input {
      display: block; width: 100%; margin-top: 4px; font: inherit; font-size: 14px;
      padding: 5px 7px; border: 1px solid #c5ccd6; border-radius: 6px; background: #fff;
      color: var(--ink); text-transform: none; letter-spacing: 0;
    }
    aside input#f-touched { font-family: var(--mono); font-size: 13px; }
    .range { display: grid; grid-template-columns: 1fr 1fr; gap: 8px; }
    aside h2 {
      font-size: 12px; text-transform: uppercase; letter-spacing: .03em; color: var(--muted);
      margin: 18px 0 6px;
    }
    .count { font-weight: 600; margin: 12px 0 0; }
    ul.plain { list-style: none; padding: 0; margin: 0; font-size: 12.5px; }
    ul.plain li { padding: 3px 0; border-bottom: 1px dotted var(--line); word-break: break-all; }
    ul.plain a { color: var(--accent); cursor: pointer; text-decoration: none; }
    ul.plain a:hover { text-decoration: underline; }
    .timing { color: var(--muted); font-size: 12px; margin-top: 16px; }
    #timeline { display: flex; flex-direction: column; min-width: 0; min-height: 0; }
    #viewport { flex: 1; overflow-y: auto; position: relative; outline: none; background: var(--panel); }
    #spacer { width: 1px; }
    #rows { position: absolute; top: 0; left: 0; right: 0; }
    .row {
      display: grid; grid-template-columns: 72px 190px minmax(120px, 1.1fr) 74px minmax(120px, 2fr);
      height: 26px; line-height: 26px; padding: 0 10px; gap: 10px; white-space: nowrap;
      border-bottom: 1px solid #eef1f4; cursor: pointer; font-size: 13px;
    }
    .row > span { overflow: hidden; text-overflow: ellipsis; }
    .row.head {
      cursor: default; background: #eef1f5; font-weight: 600; color: var(--muted); font-size: 12px;
      text-transform: uppercase; letter-spacing: .03em; border-bottom: 1px solid var(--line);
      padding-right: 25px; flex: none;
    }
    .row:not(.head):hover { background: #f3f6fa; }
    .row .seq { font-family: var(--mono); text-align: right; color: var(--muted); }
    .row .time { font-family: var(--mono); font-size: 12px; color: var(--muted); }
    .row .action { font-weight: 600; }
    .row .muts { font-family: var(--mono); font-size: 12px; color: #3b4652; }
    .row .muts.err { font-family: inherit; color: var(--bad); }
    .outcome-ok { color: var(--ok); }
    .outcome-failed { color: var(--bad); font-weight: 600; }
    .row.snapshot { background: var(--snap-bg); }
    .row.snapshot .action { color: var(--snap); }
    .row.unchecked { color: #8a939e; }
    .row.unchecked .action { font-weight: 500; }
    .row.broken { background: var(--bad-bg); box-shadow: inset 4px 0 0 var(--bad); }
    .row.broken .seq::before { content: "✗ "; color: var(--bad); }
    .row.torn { background: var(--warn-bg); box-shadow: inset 4px 0 0 var(--warn); }
    .row.selected, .row.selected:hover { background: var(--select); }
    .row.broken.selected { background: #f9d2cd; }
    #detail { overflow: auto; padding: 14px 16px; border-left: 1px solid var(--line); background: var(--panel); }
    #detail h2 { margin: 0 0 10px; font-size: 17px; }
    #detail h3 {
      margin: 16px 0 6px; font-size: 12px; text-transform: uppercase; letter-spacing: .03em;
      color: var(--muted);
    }
    #detail dl { display: grid; grid-template-columns: 92px minmax(0, 1fr); gap: 4px 10px; margin: 0; }
    #detail dt { color: var(--muted); }
    #detail dd { margin: 0; word-break: break-word; }
    .mono { font-family: var(--mono); font-size: 12.5px; }
    pre {
      font-family: var(--mono); font-size: 12.5px; background: #f4f6f9; border: 1px solid var(--line);
      border-radius: 6px; padding: 8px 10px; margin: 0; white-space: pre-wrap; word-break: break-all;
      max-height: 420px; overflow: auto;
    }
    .j-key { color: #7a3e9d; } .j-str { color: #1d7a46; } .j-num { color: #2f5fb3; }
    .j-lit { color: #b45309; }
    .note { padding: 8px 10px; border-radius: 6px; margin: 10px 0; }
    .note.bad { background: var(--bad-bg); color: var(--bad); }
    .note.ok { background: var(--ok-bg); color: var(--ok); }
    .note.warn { background: var(--warn-bg); color: var(--warn); }
    ul.changes { list-style: none; margin: 0; padding: 0; font-family: var(--mono); font-size: 12px; }
    ul.changes li { border-bottom: 1px solid var(--line); padding: 4px 0; word-break: break-word; }
    ul.changes b { color: #7a3e9d; font-weight: 600; }
    ul.changes i { color: var(--muted); }
    .hint, .empty { color: var(--muted); }
    .empty { padding: 24px; text-align: center; }
    .noscript { padding: 16px; }
    """#
}
