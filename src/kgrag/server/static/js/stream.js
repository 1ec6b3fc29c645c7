// Server-sent events from a POST: the streamed answers of /query/stream. EventSource only does GET, so
// the body is read with fetch and split into events here. Payloads are JSON; nothing is assigned as
// HTML. The AbortSignal stops the request, which stops the server's LLM request too.

export class StreamError extends Error {
  constructor(status, message) {
    super(message);
    this.status = status;
  }
}

function headers() {
  // the same marks as api(): this page's own request (X-Kgrag-Request), and the key of this tab if any
  const sent = { "X-Kgrag-Request": "1", "Content-Type": "application/json", Accept: "text/event-stream" };
  const key = sessionStorage.getItem("kgrag-key");
  if (key) sent.Authorization = "Bearer " + key;
  return sent;
}

function parse(block) {
  let name = "message";
  const data = [];
  for (const line of block.split("\n")) {
    if (line.startsWith("event:")) name = line.slice(6).trim();
    else if (line.startsWith("data:")) data.push(line.slice(5).trimStart());
  }
  return data.length ? { name, data: JSON.parse(data.join("\n")) } : null;
}

// postEvents("/v1/…/query/stream", {question}, (name, data) => …, signal): resolves when the stream ends.
export async function postEvents(path, json, onEvent, signal) {
  const response = await fetch(path, { method: "POST", headers: headers(), body: JSON.stringify(json), signal });
  if (!response.ok) {
    const type = response.headers.get("content-type") || "";
    const body = type.includes("json") ? await response.json() : {};
    throw new StreamError(response.status, (body.error && body.error.message) || `HTTP ${response.status}`);
  }
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let buffer = "";
  for (;;) {
    const { value, done } = await reader.read();
    buffer += decoder.decode(value || new Uint8Array(), { stream: !done });
    let end;
    while ((end = buffer.indexOf("\n\n")) >= 0) {
      const event = parse(buffer.slice(0, end));
      buffer = buffer.slice(end + 2);
      if (event) onEvent(event.name, event.data);
    }
    if (done) return;
  }
}
