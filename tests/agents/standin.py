"""standin.py: a model API the agents' tests own, on loopback.

    python3 standin.py PORTFILE LOG COMMAND [ADDR PORT [CERT KEY]]

Speaks, streamed, the four wire formats the agents use: Anthropic's
Messages (/v1/messages), OpenAI's Responses (/v1/responses) and Chat
Completions (/v1/chat/completions), Gemini's generateContent
(/v1beta/models/M:streamGenerateContent, and the unstreamed one).  A turn
that offers tools and has no tool result yet gets a call of the agent's
shell tool running COMMAND; once the result is in, a final message.  A
request without tools (a title, a quota probe) gets a short text.  Every
request is appended to LOG as a JSON line {"path", "body"}, for the test
to read the tool result back, with its headers (the key the agent sent).
It binds 127.0.0.1 on a port of the kernel's choosing and writes it to
PORTFILE; or ADDR PORT, and with CERT KEY speaks TLS there (the key
cases: the real host a key bound by placeholder is for).
"""
import http.server
import json
import sys

portfile, log, command = sys.argv[1], sys.argv[2], sys.argv[3]
where = sys.argv[4:8]
FINAL = "STANDIN-FINAL-ANSWER"


def has_result(body):
    """Whether the agent already sent its tool's result back."""
    text = json.dumps(body)
    return any(k in text for k in ('"tool_result"', '"function_call_output"',
                                   '"functionResponse"', '"role": "tool"'))


def sse(handler, events, named=True):
    handler.send_response(200)
    handler.send_header("Content-Type", "text/event-stream")
    handler.send_header("Cache-Control", "no-cache")
    handler.send_header("Connection", "close")
    handler.end_headers()
    for name, data in events:
        out = ""
        if named and name:
            out += "event: %s\n" % name
        out += "data: %s\n\n" % (data if isinstance(data, str) else json.dumps(data))
        handler.wfile.write(out.encode())
        handler.wfile.flush()
    handler.close_connection = True


def anthropic(h, body):
    tools = [t.get("name") for t in body.get("tools", [])]
    usage = {"input_tokens": 10, "output_tokens": 5}
    msg = {"id": "msg_standin", "type": "message", "role": "assistant",
           "model": body.get("model", "standin"), "content": [], "stop_reason": None,
           "stop_sequence": None, "usage": usage}
    shell = "Bash" if "Bash" in tools else "bash"  # Claude Code's, OpenCode's
    if shell in tools and not has_result(body):
        block = {"type": "tool_use", "id": "toolu_standin1", "name": shell, "input": {}}
        args = json.dumps({"command": command, "description": "show the files"})
        delta = {"type": "input_json_delta", "partial_json": args}
        stop = "tool_use"
    else:
        block = {"type": "text", "text": ""}
        delta = {"type": "text_delta", "text": FINAL}
        stop = "end_turn"
    if not body.get("stream"):
        if delta["type"] == "text_delta":
            block = {"type": "text", "text": FINAL}
        else:
            block["input"] = json.loads(delta["partial_json"])
        msg.update(content=[block], stop_reason=stop)
        return reply(h, msg)
    sse(h, [
        ("message_start", {"type": "message_start", "message": msg}),
        ("content_block_start", {"type": "content_block_start", "index": 0, "content_block": block}),
        ("content_block_delta", {"type": "content_block_delta", "index": 0, "delta": delta}),
        ("content_block_stop", {"type": "content_block_stop", "index": 0}),
        ("message_delta", {"type": "message_delta", "delta": {"stop_reason": stop, "stop_sequence": None},
                           "usage": {"output_tokens": 5}}),
        ("message_stop", {"type": "message_stop"}),
    ])


def responses(h, body):
    tools = {t.get("name") or t.get("type"): t for t in body.get("tools", [])}
    rid = "resp_standin"
    if not has_result(body) and ("shell" in tools or "shell_command" in tools or "exec_command" in tools):
        if "shell_command" in tools:
            name, args = "shell_command", {"command": command}
        elif "exec_command" in tools:
            name, args = "exec_command", {"cmd": command}
        else:
            name, args = "shell", {"command": ["bash", "-lc", command]}
        item = {"type": "function_call", "id": "fc_standin1", "call_id": "call_standin1",
                "name": name, "arguments": json.dumps(args), "status": "completed"}
    else:
        item = {"type": "message", "id": "msg_standin", "role": "assistant", "status": "completed",
                "content": [{"type": "output_text", "text": FINAL, "annotations": []}]}
    usage = {"input_tokens": 10, "input_tokens_details": {"cached_tokens": 0}, "output_tokens": 5,
             "output_tokens_details": {"reasoning_tokens": 0}, "total_tokens": 15}
    base = {"id": rid, "object": "response", "model": body.get("model", "standin"), "output": []}
    done = dict(base, status="completed", output=[item], usage=usage)
    sse(h, [
        ("response.created", {"type": "response.created", "response": dict(base, status="in_progress")}),
        ("response.output_item.added", {"type": "response.output_item.added", "output_index": 0, "item": item}),
        ("response.output_item.done", {"type": "response.output_item.done", "output_index": 0, "item": item}),
        ("response.completed", {"type": "response.completed", "response": done}),
    ])


def chat(h, body):
    tools = [t.get("function", {}).get("name") for t in body.get("tools", [])]
    head = {"id": "chatcmpl-standin", "object": "chat.completion.chunk", "created": 0,
            "model": body.get("model", "standin")}
    if "bash" in tools and not has_result(body):
        args = json.dumps({"command": command, "description": "show the files"})
        delta = {"role": "assistant", "tool_calls": [{"index": 0, "id": "call_standin1", "type": "function",
                                                      "function": {"name": "bash", "arguments": args}}]}
        finish = "tool_calls"
    else:
        delta = {"role": "assistant", "content": FINAL}
        finish = "stop"
    if not body.get("stream"):
        msg = {"role": "assistant", "content": delta.get("content")}
        if "tool_calls" in delta:
            msg["tool_calls"] = [dict(c) for c in delta["tool_calls"]]
        return reply(h, dict(head, object="chat.completion",
                             choices=[{"index": 0, "message": msg, "finish_reason": finish}],
                             usage={"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}))
    sse(h, [
        (None, dict(head, choices=[{"index": 0, "delta": delta, "finish_reason": None}])),
        (None, dict(head, choices=[{"index": 0, "delta": {}, "finish_reason": finish}],
                    usage={"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15})),
        (None, "[DONE]"),
    ], named=False)


def from_schema(schema):
    """A value the schema accepts: Gemini CLI's side requests (its model
    router, its checks) ask for JSON of a schema."""
    t = str(schema.get("type", "string")).lower()
    if schema.get("enum"):
        return schema["enum"][0]
    if t == "object":
        return {k: from_schema(v) for k, v in schema.get("properties", {}).items()}
    if t == "array":
        return []
    if t in ("integer", "number"):
        return 1
    if t == "boolean":
        return False
    return "standin"


def gemini(h, body, stream):
    names = [f.get("name") for t in body.get("tools", []) for f in t.get("functionDeclarations", [])]
    gc = body.get("generationConfig", {})
    if gc.get("responseMimeType") == "application/json":
        schema = gc.get("responseJsonSchema") or gc.get("responseSchema") or {}
        part = {"text": json.dumps(from_schema(schema))}
    elif "run_shell_command" in names and not has_result(body):
        part = {"functionCall": {"name": "run_shell_command",
                                 "args": {"command": command, "description": "show the files"}}}
    else:
        part = {"text": FINAL}
    out = {"candidates": [{"content": {"role": "model", "parts": [part]}, "finishReason": "STOP", "index": 0}],
           "usageMetadata": {"promptTokenCount": 10, "candidatesTokenCount": 5, "totalTokenCount": 15},
           "modelVersion": "standin"}
    if stream:
        return sse(h, [(None, out)], named=False)
    reply(h, out)


def reply(h, obj):
    data = json.dumps(obj).encode()
    h.send_response(200)
    h.send_header("Content-Type", "application/json")
    h.send_header("Content-Length", str(len(data)))
    h.end_headers()
    h.wfile.write(data)


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *a):
        pass

    def do_GET(self):
        with open(log, "a") as f:
            f.write(json.dumps({"method": "GET", "path": self.path,
                                "headers": dict(self.headers.items())}) + "\n")
        if self.path.rstrip("/").endswith("/models"):
            return reply(self, {"object": "list", "data": [{"id": "standin", "object": "model"}],
                                "models": []})
        self.send_error(404)

    def do_POST(self):
        n = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(n)
        try:
            body = json.loads(raw or b"{}")
        except ValueError:
            body = {"raw": raw.decode("latin-1")}
        with open(log, "a") as f:
            f.write(json.dumps({"method": "POST", "path": self.path, "body": body,
                                "headers": dict(self.headers.items())}) + "\n")
        p = self.path.split("?")[0]
        if p.endswith("/messages/count_tokens"):
            return reply(self, {"input_tokens": 10})
        if p.endswith("/messages"):
            return anthropic(self, body)
        if p.endswith("/responses"):
            return responses(self, body)
        if p.endswith("/chat/completions"):
            return chat(self, body)
        if ":streamGenerateContent" in p:
            return gemini(self, body, True)
        if ":generateContent" in p:
            return gemini(self, body, False)
        if ":countTokens" in p:
            return reply(self, {"totalTokens": 10})
        self.send_error(404)


srv = http.server.ThreadingHTTPServer((where[0], int(where[1])) if where else ("127.0.0.1", 0), Handler)
if len(where) == 4:
    import ssl  # noqa: E402
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    ctx.load_cert_chain(where[2], where[3])
    srv.socket = ctx.wrap_socket(srv.socket, server_side=True)
with open(portfile + ".tmp", "w") as f:
    f.write(str(srv.server_address[1]))
import os  # noqa: E402
os.rename(portfile + ".tmp", portfile)
srv.serve_forever()
