"""A small HTTP server that speaks Ollama's documented API, for tests.

Ollama cannot be installed on the build machines, so the Ollama backend is tested against
this: `GET /api/tags`, `GET /api/version`, `POST /api/show` and `POST /api/chat` (one JSON
object, or NDJSON chunks when `stream` is true; `format` carries the JSON schema). Each
chat reply comes from a script: a list of strings (or callables of the request) answered
in order; every request is recorded so tests can check what the client sent.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from datetime import UTC, datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

Reply = str | Callable[[dict], str]


class FakeOllama:
    def __init__(self, models: list[str] | None = None, replies: list[Reply] | None = None) -> None:
        self.models = models or ["tiny:latest"]
        self.replies: list[Reply] = list(replies or [])
        self.requests: list[tuple[str, dict]] = []
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}"

    def __enter__(self) -> "FakeOllama":
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._server.shutdown()
        self._server.server_close()

    def chats(self) -> list[dict]:
        return [body for path, body in self.requests if path == "/api/chat"]

    def _next_reply(self, request: dict) -> str:
        if not self.replies:
            return "{}"
        reply = self.replies.pop(0)
        return reply(request) if callable(reply) else reply

    def _handler(self):
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args) -> None:  # keep test output quiet
                pass

            def _send(self, status: int, body: bytes, content_type: str = "application/json") -> None:
                self.send_response(status)
                self.send_header("Content-Type", content_type)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def do_GET(self) -> None:
                fake.requests.append((self.path, {}))
                if self.path == "/api/tags":
                    models = [_model_entry(name) for name in fake.models]
                    self._send(200, json.dumps({"models": models}).encode())
                elif self.path == "/api/version":
                    self._send(200, b'{"version": "0.12.0"}')
                else:
                    self._send(404, b'{"error": "not found"}')

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                body = json.loads(self.rfile.read(length) or b"{}")
                fake.requests.append((self.path, body))
                if self.path == "/api/show":
                    if body.get("model") not in fake.models:
                        self._send(404, json.dumps({"error": f"model '{body.get('model')}' not found"}).encode())
                        return
                    info = {"modelfile": "", "parameters": "", "template": "{{ .Prompt }}",
                            "details": _model_entry(body["model"])["details"], "model_info": {"general.architecture": "llama"},
                            "capabilities": ["completion"]}
                    self._send(200, json.dumps(info).encode())
                elif self.path == "/api/chat":
                    if body.get("model") not in fake.models:
                        self._send(404, json.dumps({"error": f"model '{body.get('model')}' not found, try pulling it first"}).encode())
                        return
                    content = fake._next_reply(body)
                    if body.get("stream", True):
                        self._stream(body["model"], content)
                    else:
                        self._send(200, json.dumps(_chat_message(body["model"], content, done=True)).encode())
                else:
                    self._send(404, b'{"error": "not found"}')

            def _stream(self, model: str, content: str) -> None:
                pieces = [content[i : i + 7] for i in range(0, len(content), 7)] or [""]
                lines = [json.dumps(_chat_message(model, piece, done=False)) for piece in pieces]
                lines.append(json.dumps(_chat_message(model, "", done=True)))
                self._send(200, ("\n".join(lines) + "\n").encode(), "application/x-ndjson")

        return Handler


def _now() -> str:
    return datetime.now(UTC).isoformat().replace("+00:00", "Z")


def _model_entry(name: str) -> dict:
    return {
        "name": name, "model": name, "modified_at": _now(), "size": 1000, "digest": "0" * 64,
        "details": {"format": "gguf", "family": "llama", "families": ["llama"], "parameter_size": "135M", "quantization_level": "Q8_0"},
    }


def _chat_message(model: str, content: str, done: bool) -> dict:
    message = {"model": model, "created_at": _now(), "message": {"role": "assistant", "content": content}, "done": done}
    if done:
        message.update(done_reason="stop", total_duration=1000, load_duration=10, prompt_eval_count=10, prompt_eval_duration=10,
                       eval_count=5, eval_duration=10)
    return message


# ------------------------------------------------------------------ scripting answers


def answers(*drafts: str | dict):
    """A reply script: the planner's schema gets an empty proposal, the answer schema the drafts in turn."""
    queue = [d if isinstance(d, str) or callable(d) else json.dumps(d) for d in drafts]

    def reply(request: dict) -> str:
        if (request.get("format") or {}).get("title") == "DraftAnswer":
            draft = queue.pop(0)
            return draft(request) if callable(draft) else draft
        return "{}"

    return [reply] * (2 * len(drafts) + 2)


def claim(statement: str, *quotes: tuple[int, str]) -> dict:
    return {"statement": statement, "quotes": [{"passage": p, "quote": q} for p, q in quotes]}


def passage_number(request: dict, text: str) -> int:
    """The [Pn] number under which the prompt showed the passage containing `text`."""
    prompt = request["messages"][-1]["content"]
    before = prompt[: prompt.index(text)]
    return int(before[before.rindex("[P") + 2 : before.index("]", before.rindex("[P"))])
