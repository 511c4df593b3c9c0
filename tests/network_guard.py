"""Run Python with every network use checked: only the allowed host:port may be contacted.

    python -m tests.network_guard --record FILE [--allow HOST:PORT ...] -m MODULE [ARGS...]

`guarded_command` builds that command, under strace when it can trace here.

A PEP 578 audit hook sees each connect, sendto, sendmsg and name lookup made through Python's
socket module, by any library, including C extensions that go through it, before it reaches
the system. A use of anything but an allowed address raises PermissionError (an OSError, so
the caller fails as if offline) and is written to FILE at once, one JSON line, so the record
survives the process being killed; allowed contacts and the addresses it binds to listen
on are written too, to show the guard saw them. An audit hook cannot be removed, hence a child process. Native code with its own
sockets (Rust, C++) is out of its sight: strace logs the connect and sendto system calls of
every thread, and `inet_contacts` reads the addresses from its log.
"""

from __future__ import annotations

import json
import os
import re
import runpy
import shutil
import subprocess
import sys
from functools import cache
from pathlib import Path

_CONNECTS = {"socket.connect", "socket.sendto", "socket.sendmsg"}
_LOOKUPS = {"socket.getaddrinfo", "socket.gethostbyname", "socket.gethostbyaddr", "socket.getnameinfo"}


def parse_address(text: str) -> tuple[str, int]:
    host, _, port = text.rpartition(":")
    return host.strip("[]"), int(port)


def install(allowed: set[tuple[str, int]], record: Path) -> None:
    """Check every network event of this process from now on against `allowed`."""
    hosts = {host for host, _ in allowed}
    log = record.open("a", encoding="utf-8")

    def note(verdict: str, event: str, target: str) -> None:
        log.write(json.dumps({"verdict": verdict, "event": event, "target": target}) + "\n")
        log.flush()

    def hook(event: str, args: tuple) -> None:
        if event == "socket.bind":  # a socket to listen on, or to send from: noted, nothing leaves
            address = args[-1]
            note("listen", event, f"{address[0]}:{address[1]}" if isinstance(address, tuple) else str(address))
            return
        if event in _CONNECTS:
            address = args[-1]
            if address is None:  # a send on a socket already connected (and checked then)
                return
            if isinstance(address, (str, bytes)):  # AF_UNIX: a file on this machine, noted, not blocked
                note("local", event, address if isinstance(address, str) else address.decode(errors="replace"))
                return
            host, port = address[0], address[1]
            target = f"{host}:{port}"
            allowed_here = (host, port) in allowed
        elif event in _LOOKUPS:
            if args[0] is None:  # getaddrinfo(None, port): the wildcard address to listen on, no lookup
                return
            name = args[0][0] if event == "socket.getnameinfo" else args[0]
            host = name.decode() if isinstance(name, bytes) else str(name)
            target = host if event != "socket.getaddrinfo" else f"{host}:{args[1]}"
            allowed_here = host in hosts
        else:
            return
        note("allowed" if allowed_here else "blocked", event, target)
        if not allowed_here:
            raise PermissionError(f"network guard: {event} to {target} is not allowed")

    sys.addaudithook(hook)


# The variables the engine must set for itself (engine/offline.py), and those that switch
# telemetry off for reasons of their own (ONNX Runtime is silent under CI): a guarded child
# starts without them, so it shows what the product does, not what the test machine does.
UNSET_IN_CHILD = ("HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE", "HF_HUB_DISABLE_TELEMETRY", "ORT_DISABLE_TELEMETRY", "RAY_USAGE_STATS_ENABLED",
                  "ORT_RUNNING_UNIT_TESTS", "CI")
_SYSCALLS = "trace=connect,sendto,sendmsg,sendmmsg"
_INET = re.compile(r'sa_family=AF_INET, sin_port=htons\((\d+)\), sin_addr=inet_addr\("([^"]+)"\)')
_INET6 = re.compile(r'sa_family=AF_INET6, sin6_port=htons\((\d+)\),.*?inet_pton\(AF_INET6, "([^"]+)"')


@cache
def strace_works() -> bool:
    """Whether strace is installed and may trace here (a container can forbid ptrace)."""
    if shutil.which("strace") is None:
        return False
    return subprocess.run(["strace", "-f", "-e", "trace=none", "true"], capture_output=True).returncode == 0


def guarded_command(module_args: list[str], record: Path, allowed: list[str], syscalls: Path | None) -> list[str]:
    """`python -m MODULE ARGS` under the guard, and under strace writing to `syscalls` if given."""
    command = [sys.executable, "-m", "tests.network_guard", "--record", str(record)]
    for address in allowed:
        command += ["--allow", address]
    command += ["-m", *module_args]
    if syscalls is not None:
        command = ["strace", "-f", "--seccomp-bpf", "-e", _SYSCALLS, "-o", str(syscalls), *command]
    return command


def child_environment() -> dict[str, str]:
    return {name: value for name, value in os.environ.items() if name not in UNSET_IN_CHILD}


def inet_contacts(syscalls: Path) -> list[str]:
    """host:port of every IPv4/IPv6 address a traced process connected or sent to, in order."""
    contacts = []
    for line in syscalls.read_text(errors="replace").splitlines():
        found = _INET.search(line) or _INET6.search(line)
        if found:
            contacts.append(f"{found.group(2)}:{found.group(1)}")
    return contacts


def read_record(record: Path) -> list[dict]:
    if not record.exists():
        return []
    return [json.loads(line) for line in record.read_text(encoding="utf-8").splitlines() if line.strip()]


def main(argv: list[str]) -> None:
    allowed: set[tuple[str, int]] = set()
    record: Path | None = None
    while argv and argv[0] != "-m":
        flag, value, argv = argv[0], argv[1], argv[2:]
        if flag == "--allow":
            allowed.add(parse_address(value))
        elif flag == "--record":
            record = Path(value)
        else:
            raise SystemExit(f"unknown option {flag}")
    if record is None or len(argv) < 2:
        raise SystemExit(__doc__)
    module, rest = argv[1], argv[2:]
    install(allowed, record)
    sys.argv = [module, *rest]
    runpy.run_module(module, run_name="__main__", alter_sys=True)


if __name__ == "__main__":
    main(sys.argv[1:])
