// The demo page served at `/`: one self-contained HTML document (inline CSS and vanilla JS, no build step, no
// external assets). The chat speaks the AI SDK's WebSocketChatTransport protocol on
// `/agents/assistant/<name>/chat`; child timelines come from the events socket `/agents/assistant/<name>`, with
// per-run cursors on reconnect (SPEC §6). The chat name comes from `?chat=` (default "default").
//
// The script is plain ES2020 inside String.raw: it must not contain backticks, "${" or a closing script tag.

const styles = `
:root {
  color-scheme: light dark;
  --bg: #f7f7f8; --fg: #1c1c1e; --muted: #6b6b73; --card: #ffffff; --line: #dcdce0; --accent: #2f6fde;
  --ok: #1f8a4c; --err: #c62f2f; --warn: #b7791f; --bar: #e6e6ea; --user: #e8f0fe;
}
@media (prefers-color-scheme: dark) {
  :root {
    --bg: #151517; --fg: #ececf0; --muted: #9a9aa3; --card: #1f1f23; --line: #34343a; --accent: #7aa7ff;
    --ok: #5fcf8e; --err: #ff7b7b; --warn: #f0b659; --bar: #2c2c31; --user: #1d2a44;
  }
}
* { box-sizing: border-box; }
body { margin: 0; background: var(--bg); color: var(--fg); font: 15px/1.5 system-ui, -apple-system, "Segoe UI", sans-serif; }
header.top { position: sticky; top: 0; z-index: 2; display: flex; gap: 12px; align-items: center; flex-wrap: wrap;
  padding: 10px 16px; background: var(--card); border-bottom: 1px solid var(--line); }
header.top h1 { font-size: 17px; margin: 0; }
.muted { color: var(--muted); }
.spacer { flex: 1; }
#conn { font-size: 13px; min-width: 16em; }
button, .button { font: inherit; font-size: 13px; padding: 4px 10px; border-radius: 6px; border: 1px solid var(--line);
  background: var(--card); color: var(--fg); cursor: pointer; text-decoration: none; }
button:disabled { opacity: .5; cursor: default; }
button:focus-visible, a:focus-visible, input:focus-visible { outline: 2px solid var(--accent); outline-offset: 2px; }
main { display: grid; grid-template-columns: minmax(0, 1fr); gap: 16px; padding: 16px; padding-bottom: 96px;
  max-width: 1200px; margin: 0 auto; }
@media (min-width: 960px) { main { grid-template-columns: minmax(0, 1fr) 340px; } #tray { position: sticky; top: 64px; align-self: start; } }
#messages { list-style: none; margin: 0; padding: 0; display: flex; flex-direction: column; gap: 12px; }
.msg { background: var(--card); border: 1px solid var(--line); border-radius: 10px; padding: 10px 14px; }
.msg.user { background: var(--user); }
.msg .role { font-size: 12px; font-weight: 600; color: var(--muted); text-transform: uppercase; letter-spacing: .04em; }
.msg p.text { margin: 4px 0; white-space: pre-wrap; overflow-wrap: anywhere; }
.tool { margin: 8px 0; border-left: 3px solid var(--accent); padding-left: 10px; }
.tool-head { font-size: 13px; display: flex; gap: 8px; align-items: baseline; flex-wrap: wrap; }
.tool-head code { color: var(--muted); overflow-wrap: anywhere; }
.tool-error { color: var(--err); margin: 4px 0; font-size: 13px; }
.runs { display: flex; flex-direction: column; gap: 8px; margin-top: 6px; }
.run { border: 1px solid var(--line); border-radius: 8px; padding: 8px 10px; background: var(--bg); font-size: 14px; }
.run-head { display: flex; gap: 8px; align-items: center; flex-wrap: wrap; }
.run-name { font-weight: 600; }
.run-id { font-size: 12px; color: var(--muted); }
.badge { font-size: 12px; padding: 0 8px; border-radius: 10px; border: 1px solid currentColor; }
.s-running .badge, .s-unknown .badge { color: var(--accent); }
.s-completed .badge { color: var(--ok); }
.s-error .badge, .s-aborted .badge { color: var(--err); }
.s-interrupted .badge { color: var(--warn); }
.run-input { margin: 2px 0; font-size: 13px; white-space: nowrap; overflow: hidden; text-overflow: ellipsis; }
.progress-row { display: flex; align-items: center; gap: 8px; height: 22px; font-size: 12px; }
.bar { flex: 0 0 140px; height: 8px; border-radius: 4px; background: var(--bar); overflow: hidden; }
.fill { height: 100%; width: 0; background: var(--accent); transition: width .2s ease; }
.s-completed .fill { background: var(--ok); }
.progress-text { flex: 1; min-width: 0; white-space: nowrap; overflow: hidden; text-overflow: ellipsis; color: var(--muted); }
.timeline { font-size: 13px; }
.timeline p { margin: 2px 0; white-space: pre-wrap; overflow-wrap: anywhere; }
.t-tool code { color: var(--muted); overflow-wrap: anywhere; }
.t-milestone { color: var(--warn); }
.t-error, .r-error { color: var(--err); }
.run-result { margin: 4px 0 0; font-size: 13px; white-space: pre-wrap; overflow-wrap: anywhere; }
.r-completed { color: var(--ok); }
.r-interrupted { color: var(--warn); }
#tray { background: var(--card); border: 1px solid var(--line); border-radius: 10px; padding: 10px 14px; }
#tray h2 { font-size: 14px; margin: 0 0 6px; }
#notice { color: var(--err); margin: 0; }
#notice:empty { display: none; }
form#chat-form { position: fixed; left: 0; right: 0; bottom: 0; display: flex; gap: 8px; padding: 12px 16px;
  background: var(--card); border-top: 1px solid var(--line); }
#prompt { flex: 1; font: inherit; padding: 8px 10px; border-radius: 8px; border: 1px solid var(--line);
  background: var(--bg); color: var(--fg); }
form#chat-form button { font-size: 15px; padding: 8px 16px; }
form#chat-form button[type=submit] { background: var(--accent); color: #fff; border-color: var(--accent); }
.visually-hidden { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); white-space: nowrap; }
.empty-chat { color: var(--muted); }
`;

const script = String.raw`
(function () {
  "use strict";
  var params = new URLSearchParams(location.search);
  var chatName = params.get("chat") || "default";
  var base = "/agents/assistant/" + encodeURIComponent(chatName);
  var wsOrigin = (location.protocol === "https:" ? "wss://" : "ws://") + location.host;
  var EVENTS_PATH = base;
  var CHAT_PATH = base + "/chat";
  var HARD_TERMINAL = { completed: true, error: true, aborted: true };
  var TERMINAL = { completed: true, error: true, aborted: true, interrupted: true };
  var LIFECYCLE_STATUS = { finished: "completed", error: "error", aborted: "aborted", interrupted: "interrupted" };

  var listEl = document.getElementById("messages");
  var trayRunsEl = document.getElementById("tray-runs");
  var trayEmptyEl = document.getElementById("tray-empty");
  var connEl = document.getElementById("conn");
  var noticeEl = document.getElementById("notice");
  var formEl = document.getElementById("chat-form");
  var promptEl = document.getElementById("prompt");
  var sendEl = document.getElementById("send");
  var stopEl = document.getElementById("stop");
  var clearEl = document.getElementById("clear-runs");
  document.getElementById("chat-name").textContent = "chat: " + chatName;
  document.title = "agent-tools demo · " + chatName;

  // ---------- helpers ----------
  function h(tag, attrs, children) {
    var node = document.createElement(tag);
    if (attrs) {
      Object.keys(attrs).forEach(function (key) {
        var value = attrs[key];
        if (value === null || value === undefined || value === false) return;
        if (key === "className") node.className = value;
        else if (key === "onclick") node.addEventListener("click", value);
        else node.setAttribute(key, value === true ? "" : String(value));
      });
    }
    (children || []).forEach(function (child) {
      if (child === null || child === undefined) return;
      node.appendChild(typeof child === "string" ? document.createTextNode(child) : child);
    });
    return node;
  }
  function isObject(value) { return typeof value === "object" && value !== null && !Array.isArray(value); }
  function preview(value, max) {
    var text;
    try { text = typeof value === "string" ? value : JSON.stringify(value); } catch (e) { text = "…"; }
    if (text === undefined) return "";
    text = String(text).replace(/\s+/g, " ");
    max = max || 120;
    return text.length > max ? text.slice(0, max - 1) + "…" : text;
  }
  function newId() {
    if (window.crypto && typeof window.crypto.randomUUID === "function") return window.crypto.randomUUID();
    return "id-" + Date.now().toString(36) + "-" + Math.random().toString(36).slice(2, 10);
  }
  function notice(text) { noticeEl.textContent = text || ""; }
  function nearBottom() { return window.innerHeight + window.scrollY >= document.documentElement.scrollHeight - 120; }
  function keepBottom(wasNear) { if (wasNear) window.scrollTo(0, document.documentElement.scrollHeight); }

  var conn = { events: "connecting", chat: "idle" };
  function setConn(key, value) {
    conn[key] = value;
    connEl.textContent = "events: " + conn.events + " · chat: " + conn.chat;
  }

  // ---------- chat messages (UIMessage-shaped, as the server stores them) ----------
  var messages = [];
  var toolSlots = new Map(); // toolCallId -> element holding that tool call's child runs
  var pending = null; // { requestId, message, texts: Map(chunk id -> text part), li }

  function isToolPart(part) {
    return isObject(part) && typeof part.toolCallId === "string" && typeof part.type === "string" &&
      (part.type === "dynamic-tool" || part.type.indexOf("tool-") === 0);
  }
  function toolNameOf(part) { return part.type === "dynamic-tool" ? (part.toolName || "tool") : part.type.slice(5); }
  function slotFor(toolCallId) {
    var slot = toolSlots.get(toolCallId);
    if (!slot) {
      slot = h("div", { className: "runs", "data-tool-call-id": toolCallId });
      toolSlots.set(toolCallId, slot);
    }
    return slot;
  }
  function toolStateLabel(part) {
    switch (part.state) {
      case "input-streaming": return "preparing…";
      case "input-available": return "running…";
      case "output-available": return "done";
      case "output-error": return "failed";
      case "output-denied": return "denied";
      default: return part.state || "";
    }
  }
  function renderPart(part) {
    if (!isObject(part)) return null;
    if (part.type === "text") return h("p", { className: "text" }, [String(part.text || "")]);
    if (isToolPart(part)) {
      var head = h("div", { className: "tool-head" }, [
        h("strong", null, ["→ " + toolNameOf(part)]),
        h("code", null, [part.input === undefined ? "" : preview(part.input, 160)]),
        h("span", { className: "muted" }, [toolStateLabel(part)]),
      ]);
      var box = h("div", { className: "tool" }, [head]);
      if (part.state === "output-error" && part.errorText) box.appendChild(h("p", { className: "tool-error" }, [String(part.errorText)]));
      box.appendChild(slotFor(part.toolCallId));
      return box;
    }
    return null;
  }
  function renderMessage(message) {
    var body = h("div", { className: "parts" });
    (Array.isArray(message.parts) ? message.parts : []).forEach(function (part) {
      var node = renderPart(part);
      if (node) body.appendChild(node);
    });
    if (message === (pending && pending.message) && body.childNodes.length === 0) {
      body.appendChild(h("p", { className: "text muted" }, ["…"]));
    }
    var role = message.role === "user" ? "You" : message.role === "assistant" ? "Assistant" : String(message.role);
    return h("li", { className: "msg " + message.role, "data-message-id": message.id }, [
      h("div", { className: "role" }, [role]),
      body,
    ]);
  }
  function renderMessages() {
    var wasNear = nearBottom();
    listEl.textContent = "";
    if (messages.length === 0) listEl.appendChild(h("li", { className: "empty-chat" }, ["No messages yet. Try “research cats”."]));
    messages.forEach(function (message) {
      var li = renderMessage(message);
      if (pending && message === pending.message) pending.li = li;
      listEl.appendChild(li);
    });
    placeAllRuns();
    keepBottom(wasNear);
  }
  var pendingFrame = 0;
  function renderPendingSoon() {
    if (pendingFrame) return;
    pendingFrame = requestAnimationFrame(function () {
      pendingFrame = 0;
      if (!pending) return;
      var wasNear = nearBottom();
      var li = renderMessage(pending.message);
      if (pending.li && pending.li.parentNode === listEl) listEl.replaceChild(li, pending.li);
      else listEl.appendChild(li);
      pending.li = li;
      placeAllRuns();
      keepBottom(wasNear);
    });
  }

  function findToolPart(message, toolCallId) {
    for (var i = 0; i < message.parts.length; i++) {
      if (message.parts[i].toolCallId === toolCallId) return message.parts[i];
    }
    return null;
  }
  function toolPartFrom(chunk, state) {
    var part = chunk.dynamic
      ? { type: "dynamic-tool", toolName: chunk.toolName, toolCallId: chunk.toolCallId, state: state }
      : { type: "tool-" + chunk.toolName, toolCallId: chunk.toolCallId, state: state };
    return part;
  }
  /** Apply one UIMessageChunk of the assistant's reply to the pending message. */
  function applyChatChunk(chunk) {
    if (!pending || !isObject(chunk) || typeof chunk.type !== "string") return;
    var message = pending.message;
    var part;
    switch (chunk.type) {
      case "start":
        if (typeof chunk.messageId === "string") message.id = chunk.messageId;
        break;
      case "start-step":
        message.parts.push({ type: "step-start" });
        break;
      case "text-start":
        part = { type: "text", text: "", state: "streaming" };
        pending.texts.set(chunk.id, part);
        message.parts.push(part);
        break;
      case "text-delta":
        part = pending.texts.get(chunk.id);
        if (!part) {
          part = { type: "text", text: "", state: "streaming" };
          pending.texts.set(chunk.id, part);
          message.parts.push(part);
        }
        part.text += typeof chunk.delta === "string" ? chunk.delta : "";
        break;
      case "text-end":
        part = pending.texts.get(chunk.id);
        if (part) part.state = "done";
        break;
      case "tool-input-start":
        if (!findToolPart(message, chunk.toolCallId)) message.parts.push(toolPartFrom(chunk, "input-streaming"));
        break;
      case "tool-input-available":
        part = findToolPart(message, chunk.toolCallId);
        if (!part) { part = toolPartFrom(chunk, "input-available"); message.parts.push(part); }
        part.state = "input-available";
        part.input = chunk.input;
        break;
      case "tool-input-error":
        part = findToolPart(message, chunk.toolCallId);
        if (!part) { part = toolPartFrom(chunk, "output-error"); message.parts.push(part); }
        part.state = "output-error";
        part.input = chunk.input;
        part.errorText = chunk.errorText;
        break;
      case "tool-output-available":
        part = findToolPart(message, chunk.toolCallId);
        if (part) { part.state = "output-available"; part.output = chunk.output; }
        break;
      case "tool-output-error":
        part = findToolPart(message, chunk.toolCallId);
        if (part) { part.state = "output-error"; part.errorText = chunk.errorText; }
        break;
      case "error":
        notice("Assistant error: " + (chunk.errorText || "unknown error"));
        break;
      default:
        return;
    }
    renderPendingSoon();
  }

  // ---------- chat socket (AI SDK WebSocketChatTransport protocol) ----------
  var chatSocket = null;
  var chatOpening = null;
  function openChatSocket() {
    if (chatSocket && chatSocket.readyState === WebSocket.OPEN) return Promise.resolve(chatSocket);
    if (chatOpening) return chatOpening;
    setConn("chat", "connecting");
    chatOpening = new Promise(function (resolve, reject) {
      var socket = new WebSocket(wsOrigin + CHAT_PATH);
      socket.onopen = function () { chatOpening = null; chatSocket = socket; setConn("chat", "ready"); resolve(socket); };
      socket.onerror = function () { /* close follows */ };
      socket.onclose = function () {
        if (chatOpening) { chatOpening = null; setConn("chat", "offline"); reject(new Error("cannot connect")); return; }
        if (chatSocket === socket) chatSocket = null;
        setConn("chat", "offline");
        if (pending) { notice("The chat connection closed before the reply ended."); finishRequest(); }
      };
      socket.onmessage = function (event) {
        var frame;
        try { frame = JSON.parse(String(event.data)); } catch (e) { return; }
        if (!isObject(frame)) return;
        if (!pending || frame.requestId !== pending.requestId) {
          if (frame.type === "error" && !frame.requestId) notice("Chat error: " + (frame.errorText || "unknown error"));
          return;
        }
        if (frame.type === "chunk") applyChatChunk(frame.chunk);
        else if (frame.type === "end" || frame.type === "no-active") finishRequest();
        else if (frame.type === "error") { notice("Chat error: " + (frame.errorText || "unknown error")); finishRequest(); }
      };
    });
    return chatOpening;
  }
  function setBusy(busy) {
    sendEl.disabled = busy;
    stopEl.disabled = !busy;
    setConn("chat", busy ? "replying…" : (chatSocket ? "ready" : "idle"));
  }
  function finishRequest() {
    pending = null;
    setBusy(false);
    loadMessages();
  }
  function plainMessage(message) {
    return JSON.parse(JSON.stringify({ id: message.id, role: message.role, parts: message.parts || [], metadata: message.metadata }));
  }
  formEl.addEventListener("submit", function (event) {
    event.preventDefault();
    var text = promptEl.value.trim();
    if (!text || pending) return;
    notice("");
    var user = { id: newId(), role: "user", parts: [{ type: "text", text: text }] };
    var history = messages.map(plainMessage).concat([user]);
    messages.push(user);
    var assistant = { id: "pending-" + newId(), role: "assistant", parts: [] };
    messages.push(assistant);
    pending = { requestId: newId(), message: assistant, texts: new Map(), li: null };
    promptEl.value = "";
    setBusy(true);
    renderMessages();
    var request = pending;
    openChatSocket().then(function (socket) {
      if (pending !== request) return;
      socket.send(JSON.stringify({
        type: "send", requestId: request.requestId, id: chatName, trigger: "submit-message",
        messageId: undefined, messages: history, headers: {}, body: {}, metadata: null,
      }));
    }, function () {
      if (pending !== request) return;
      notice("Cannot connect to the chat socket. Is “pnpm demo” running?");
      finishRequest();
    });
  });
  stopEl.addEventListener("click", function () {
    if (pending && chatSocket && chatSocket.readyState === WebSocket.OPEN) {
      chatSocket.send(JSON.stringify({ type: "abort", requestId: pending.requestId }));
    }
  });

  function loadMessages() {
    return fetch(base + "/messages").then(function (response) {
      if (!response.ok) throw new Error("HTTP " + response.status);
      return response.json();
    }).then(function (list) {
      if (pending) return; // a new request started meanwhile; the next end reloads
      if (Array.isArray(list)) { messages = list.filter(isObject); renderMessages(); }
    }).catch(function (error) {
      notice("Could not load messages: " + error.message);
    });
  }

  // ---------- child runs (agent-tool-event frames) ----------
  var runs = new Map();
  var clearedRuns = new Set();

  function ensureRun(runId, parentToolCallId) {
    var run = runs.get(runId);
    if (!run) {
      run = {
        runId: runId, agentType: null, display: null, inputPreview: "", displayOrder: 0,
        parentToolCallId: null, status: "unknown", revision: 0, sequence: 0, seen: new Set(),
        items: [], texts: new Map(), tools: new Map(), progress: null,
        summary: null, error: null, reason: null, childStillRunning: null, view: null, cancelling: false,
      };
      runs.set(runId, run);
    }
    if (parentToolCallId && !run.parentToolCallId) run.parentToolCallId = parentToolCallId;
    return run;
  }
  function readBody(body) {
    if (typeof body === "string") { try { body = JSON.parse(body); } catch (e) { return null; } }
    return isObject(body) && typeof body.type === "string" ? body : null;
  }
  function applyRunChunk(run, body) {
    var data = isObject(body.data) ? body.data : {};
    var item;
    switch (body.type) {
      case "text-start":
        item = { kind: "text", text: "" };
        run.texts.set(body.id, item);
        run.items.push(item);
        break;
      case "text-delta":
        item = run.texts.get(body.id);
        if (!item) { item = { kind: "text", text: "" }; run.texts.set(body.id, item); run.items.push(item); }
        item.text += typeof body.delta === "string" ? body.delta : "";
        break;
      case "tool-input-start":
      case "tool-input-available":
        item = run.tools.get(body.toolCallId);
        if (!item) {
          item = { kind: "tool", name: body.toolName || "tool", input: undefined, state: "running", detail: "" };
          run.tools.set(body.toolCallId, item);
          run.items.push(item);
        }
        if (body.type === "tool-input-available") item.input = body.input;
        break;
      case "tool-output-available":
        item = run.tools.get(body.toolCallId);
        if (item) { item.state = "done"; item.detail = preview(body.output, 100); }
        break;
      case "tool-output-error":
      case "tool-input-error":
        item = run.tools.get(body.toolCallId);
        if (item) { item.state = "error"; item.detail = String(body.errorText || "failed"); }
        break;
      case "data-agent-progress":
        run.progress = {
          fraction: typeof data.fraction === "number" && isFinite(data.fraction) ? data.fraction : null,
          message: typeof data.message === "string" ? data.message : "",
          phase: typeof data.phase === "string" ? data.phase : "",
        };
        break;
      case "data-agent-milestone":
        run.items.push({ kind: "milestone", name: String(data.milestone || data.name || "milestone"), message: typeof data.message === "string" ? data.message : "" });
        if (typeof data.fraction === "number" && isFinite(data.fraction)) {
          run.progress = { fraction: data.fraction, message: typeof data.message === "string" ? data.message : "", phase: typeof data.phase === "string" ? data.phase : "" };
        }
        break;
      case "error":
        run.items.push({ kind: "error", text: String(body.errorText || "error") });
        break;
      default:
        return false;
    }
    return true;
  }
  function applyLifecycle(run, frame) {
    var event = frame.event;
    if (typeof frame.revision === "number") {
      if (frame.revision <= run.revision) return false;
      run.revision = frame.revision;
    } else if (event.kind === "started" ? run.status !== "unknown" : HARD_TERMINAL[run.status]) {
      return false;
    }
    if (event.kind === "started") {
      if (typeof event.agentType === "string") run.agentType = event.agentType;
      if (isObject(event.display)) run.display = event.display;
      if (typeof event.inputPreview === "string") run.inputPreview = event.inputPreview;
      if (typeof event.displayOrder === "number") run.displayOrder = event.displayOrder;
      if (!TERMINAL[run.status]) run.status = "running";
      return true;
    }
    run.status = LIFECYCLE_STATUS[event.kind];
    run.summary = event.kind === "finished" ? String(event.summary || "") : null;
    run.error = typeof event.error === "string" ? event.error : null;
    run.reason = event.kind === "interrupted" ? (event.reason || null) : null;
    run.childStillRunning = event.kind === "interrupted" ? event.childStillRunning === true : null;
    if (event.kind === "finished") {
      run.progress = run.progress ? { fraction: 1, message: run.progress.message, phase: run.progress.phase } : run.progress;
    }
    return true;
  }
  function forgetRuns(runIds) {
    runIds.forEach(function (runId) {
      if (typeof runId !== "string") return;
      var run = runs.get(runId);
      if (run && run.view && run.view.card.parentNode) run.view.card.parentNode.removeChild(run.view.card);
      runs.delete(runId);
      clearedRuns.add(runId);
    });
    updateTrayEmpty();
  }
  function handleFrame(text) {
    var frame;
    try { frame = JSON.parse(text); } catch (e) { return; }
    if (!isObject(frame) || frame.type !== "agent-tool-event" || !isObject(frame.event)) return;
    var event = frame.event;
    if (event.kind === "cleared") { if (Array.isArray(event.runIds)) forgetRuns(event.runIds); return; }
    if (typeof event.runId !== "string" || !event.runId || clearedRuns.has(event.runId)) return;
    var parentToolCallId = typeof frame.parentToolCallId === "string" ? frame.parentToolCallId : null;
    var run;
    if (event.kind === "chunk") {
      var body = readBody(event.body);
      if (!body) return;
      run = ensureRun(event.runId, parentToolCallId);
      if (typeof frame.sequence === "number") {
        if (run.seen.has(frame.sequence)) return; // deduped by (runId, sequence)
        run.seen.add(frame.sequence);
        if (frame.sequence > run.sequence) run.sequence = frame.sequence;
      }
      if (run.status === "unknown") run.status = "running";
      applyRunChunk(run, body);
    } else if (event.kind === "started" || LIFECYCLE_STATUS[event.kind]) {
      run = ensureRun(event.runId, parentToolCallId);
      if (!applyLifecycle(run, frame)) return;
    } else {
      return;
    }
    scheduleRun(run);
  }

  // ---------- run cards ----------
  var dirtyRuns = new Set();
  var runFrame = 0;
  function scheduleRun(run) {
    dirtyRuns.add(run.runId);
    if (runFrame) return;
    runFrame = requestAnimationFrame(function () {
      runFrame = 0;
      var wasNear = nearBottom();
      dirtyRuns.forEach(function (runId) { var r = runs.get(runId); if (r) renderRun(r); });
      dirtyRuns.clear();
      keepBottom(wasNear);
    });
  }
  function displayName(run) {
    return (run.display && typeof run.display.name === "string" && run.display.name) || run.agentType || "run";
  }
  function buildView(run) {
    var card = h("article", { className: "run", "data-run-id": run.runId });
    var name = h("span", { className: "run-name" });
    var badge = h("span", { className: "badge" });
    var id = h("code", { className: "run-id" }, [run.runId]);
    var drill = h("a", { className: "button", target: "_blank", rel: "noopener" }, ["Details"]);
    var cancel = h("button", { type: "button", onclick: function () { cancelRun(run.runId); } }, ["Cancel"]);
    var fill = h("div", { className: "fill" });
    var bar = h("div", { className: "bar", role: "progressbar", "aria-valuemin": "0", "aria-valuemax": "100" }, [fill]);
    var progressText = h("span", { className: "progress-text" });
    var input = h("p", { className: "run-input muted" });
    var timeline = h("div", { className: "timeline" });
    var result = h("p", { className: "run-result" });
    card.appendChild(h("div", { className: "run-head" }, [name, badge, id, h("span", { className: "spacer" }), drill, cancel]));
    card.appendChild(input);
    // Always present with a fixed height, so progress appearing never moves the layout.
    card.appendChild(h("div", { className: "progress-row" }, [bar, progressText]));
    card.appendChild(timeline);
    card.appendChild(result);
    return { card: card, name: name, badge: badge, drill: drill, cancel: cancel, bar: bar, fill: fill, progressText: progressText, input: input, timeline: timeline, result: result };
  }
  function renderRun(run) {
    if (!run.view) run.view = buildView(run);
    var view = run.view;
    var live = !TERMINAL[run.status];
    view.card.className = "run s-" + run.status;
    view.card.setAttribute("aria-label", displayName(run) + " run, " + run.status);
    view.name.textContent = displayName(run);
    view.badge.textContent = run.status === "unknown" ? "…" : run.status;
    if (run.agentType) {
      view.drill.href = base + "/sub/" + encodeURIComponent(run.agentType) + "/" + encodeURIComponent(run.runId);
      view.drill.hidden = false;
    } else {
      view.drill.hidden = true;
    }
    view.cancel.hidden = !live;
    view.cancel.disabled = run.cancelling;
    view.input.textContent = run.inputPreview ? preview(run.inputPreview, 200) : "";
    view.input.hidden = !run.inputPreview;
    var progress = run.progress;
    var fraction = progress && typeof progress.fraction === "number" ? Math.max(0, Math.min(1, progress.fraction)) : null;
    view.fill.style.width = fraction === null ? "0" : Math.round(fraction * 100) + "%";
    if (fraction === null) view.bar.removeAttribute("aria-valuenow");
    else view.bar.setAttribute("aria-valuenow", String(Math.round(fraction * 100)));
    var label = "";
    if (fraction !== null) label = Math.round(fraction * 100) + "%";
    if (progress && (progress.message || progress.phase)) label += (label ? " · " : "") + (progress.message || progress.phase);
    if (!label && live) label = "working…";
    view.progressText.textContent = label;
    view.timeline.textContent = "";
    run.items.forEach(function (item) {
      if (item.kind === "text") { if (item.text) view.timeline.appendChild(h("p", null, [item.text])); }
      else if (item.kind === "tool") {
        var mark = item.state === "done" ? " ✓" : item.state === "error" ? " ✗ " + item.detail : " …";
        view.timeline.appendChild(h("p", { className: "t-tool" }, ["→ " + item.name + "(", h("code", null, [item.input === undefined ? "" : preview(item.input, 100)]), ")" + mark]));
      } else if (item.kind === "milestone") {
        view.timeline.appendChild(h("p", { className: "t-milestone" }, ["◆ " + item.name + (item.message ? " — " + item.message : "")]));
      } else if (item.kind === "error") {
        view.timeline.appendChild(h("p", { className: "t-error" }, ["! " + item.text]));
      }
    });
    var resultText = "";
    if (run.status === "completed") resultText = "✓ " + (run.summary || "completed");
    else if (run.status === "error") resultText = "✗ " + (run.error || "error");
    else if (run.status === "aborted") resultText = "⏹ aborted" + (run.error ? ": " + run.error : "");
    else if (run.status === "interrupted") {
      resultText = "⚠ interrupted" + (run.reason ? " (" + run.reason + (run.childStillRunning ? ", child still running" : "") + ")" : "") + (run.error ? ": " + run.error : "");
    }
    view.result.textContent = resultText;
    view.result.className = "run-result r-" + run.status;
    view.result.hidden = !resultText;
    placeRun(run);
  }
  function placeRun(run) {
    if (!run.view) return;
    var target = (run.parentToolCallId && toolSlots.has(run.parentToolCallId) && toolSlots.get(run.parentToolCallId).isConnected)
      ? toolSlots.get(run.parentToolCallId) : trayRunsEl;
    var card = run.view.card;
    if (card.parentNode !== target) {
      var before = null;
      for (var i = 0; i < target.children.length; i++) {
        var other = runs.get(target.children[i].getAttribute("data-run-id"));
        if (other && other.displayOrder > run.displayOrder) { before = target.children[i]; break; }
      }
      target.insertBefore(card, before);
    }
    updateTrayEmpty();
  }
  function placeAllRuns() { runs.forEach(function (run) { placeRun(run); }); updateTrayEmpty(); }
  function updateTrayEmpty() { trayEmptyEl.hidden = trayRunsEl.children.length > 0; }

  function cancelRun(runId) {
    var run = runs.get(runId);
    if (run) { run.cancelling = true; scheduleRun(run); }
    fetch(base + "/cancel/" + encodeURIComponent(runId), { method: "POST" }).then(function (response) {
      if (!response.ok) throw new Error("HTTP " + response.status);
    }).catch(function (error) {
      notice("Cancel failed: " + error.message);
    }).then(function () {
      var current = runs.get(runId);
      if (current) { current.cancelling = false; scheduleRun(current); }
    });
  }
  clearEl.addEventListener("click", function () {
    clearEl.disabled = true;
    fetch(base + "/clear", { method: "POST" }).then(function (response) {
      if (!response.ok) throw new Error("HTTP " + response.status);
      return response.json();
    }).then(function (result) {
      // The server also sends a cleared frame; applying it twice is harmless.
      if (isObject(result) && Array.isArray(result.runIds)) forgetRuns(result.runIds);
    }).catch(function (error) {
      notice("Clear failed: " + error.message);
    }).then(function () { clearEl.disabled = false; });
  });

  // ---------- events socket, with cursors on reconnect ----------
  var eventsAttempt = 0;
  function eventsUrl() {
    var cursors = [];
    runs.forEach(function (run) { cursors.push([run.runId, run.sequence, run.revision]); });
    var url = wsOrigin + EVENTS_PATH;
    if (cursors.length > 0) url += "?agentToolCursors=" + encodeURIComponent(JSON.stringify(cursors));
    return url;
  }
  function connectEvents() {
    setConn("events", eventsAttempt === 0 ? "connecting" : "reconnecting");
    var socket;
    try { socket = new WebSocket(eventsUrl()); } catch (e) { retryEvents(); return; }
    socket.onopen = function () { eventsAttempt = 0; setConn("events", "live"); };
    socket.onmessage = function (event) { if (typeof event.data === "string") handleFrame(event.data); };
    socket.onerror = function () { /* close follows */ };
    socket.onclose = function () { retryEvents(); };
  }
  function retryEvents() {
    eventsAttempt += 1;
    setConn("events", "reconnecting");
    setTimeout(connectEvents, Math.min(5000, 250 * Math.pow(2, eventsAttempt)));
  }

  setConn("events", "connecting");
  setBusy(false);
  renderMessages();
  loadMessages().then(connectEvents);
})();
`;

/** The whole page: served by the Worker at `GET /`. */
export const pageHtml: string = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>agent-tools demo</title>
<style>${styles}</style>
</head>
<body>
<header class="top">
  <h1>agent-tools demo</h1>
  <span id="chat-name" class="muted"></span>
  <span id="conn" class="muted" role="status" aria-live="polite"></span>
  <span class="spacer"></span>
  <button type="button" id="clear-runs">Clear runs</button>
</header>
<main>
  <section aria-label="Conversation">
    <p id="notice" role="alert"></p>
    <ol id="messages"></ol>
  </section>
  <section id="tray" aria-labelledby="tray-title">
    <h2 id="tray-title">Background runs</h2>
    <p id="tray-empty" class="muted">No background runs.</p>
    <div id="tray-runs" class="runs"></div>
  </section>
</main>
<form id="chat-form" autocomplete="off">
  <label for="prompt" class="visually-hidden">Message</label>
  <input id="prompt" name="prompt" placeholder="Message the assistant, e.g. research cats" autofocus>
  <button type="submit" id="send">Send</button>
  <button type="button" id="stop" disabled>Stop</button>
</form>
<noscript><p>This page needs JavaScript.</p></noscript>
<script>${script}</script>
</body>
</html>
`;
