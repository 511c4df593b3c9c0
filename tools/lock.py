"""Write requirements.txt, the pinned lock, from requirements.in and the installed packages.

    .venv/bin/python tools/lock.py           # rewrite requirements.txt
    .venv/bin/python tools/lock.py --check   # exit 1 if requirements.txt is not what it would write

The lock is the transitive closure of requirements.in over the distributions installed in the
running interpreter's environment, read from their own metadata (`importlib.metadata`): each
requirement whose environment marker holds here (Linux, this Python), with the extras asked
for, down to the last dependency, each pinned to the version installed. No resolver and no
network: the lock records a venv that has been installed and tested, so `make lock` changes
no version by itself. To add, remove or upgrade a package, change the venv and requirements.in
(README, "Tests and dependencies"), then run this.

A requirement of requirements.in that is not installed, or installed at a version its
specifier excludes, is an error. So is any NVIDIA/CUDA package in the closure: torch must be
the CPU build (`torch==2.13.0`, which the Makefile installs first from the wheel on disk).
Local version labels are dropped (`2.13.0+cpu` is pinned as `==2.13.0`, which that build
satisfies), so the lock asks for the same version the Makefile installs.
"""

from __future__ import annotations

import argparse
import re
import sys
from importlib import metadata
from pathlib import Path

from packaging.requirements import InvalidRequirement, Requirement
from packaging.version import Version

ROOT = Path(__file__).resolve().parent.parent
IN_FILE = ROOT / "requirements.in"
LOCK_FILE = ROOT / "requirements.txt"

# Names that mean a CUDA build of torch (or its kernels) got into the venv.
CUDA_NAME = re.compile(r"^(nvidia-.*|cuda-.*|triton)$")

HEADER = """\
# The pinned lock: generated from requirements.in by tools/lock.py (`make lock`); do not edit.
# Every package the direct dependencies need on Linux with CPython {python}, at the version
# installed and tested. torch is the CPU build, installed first by the Makefile.
"""


def canonical(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def read_in(path: Path) -> list[Requirement]:
    requirements = []
    for number, raw in enumerate(path.read_text().splitlines(), 1):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        try:
            requirements.append(Requirement(line))
        except InvalidRequirement as error:
            sys.exit(f"{path.name}:{number}: {error}")
    return requirements


def installed() -> dict[str, metadata.Distribution]:
    found: dict[str, metadata.Distribution] = {}
    for dist in metadata.distributions():
        found.setdefault(canonical(dist.metadata["Name"]), dist)
    return found


def applies(requirement: Requirement, extras: set[str]) -> bool:
    """Whether a requirement holds here, for a distribution asked for with these extras."""
    if requirement.marker is None:
        return True
    return any(requirement.marker.evaluate({"extra": extra}) for extra in extras | {""})


def closure(roots: list[Requirement], dists: dict[str, metadata.Distribution]) -> tuple[dict, dict, list[str]]:
    """Pinned distributions reached from roots, what each was reached from, and the errors."""
    reached: dict[str, metadata.Distribution] = {}
    extras_of: dict[str, set[str]] = {}
    via: dict[str, set[str]] = {}
    errors: list[str] = []
    queue = [("requirements.in", requirement) for requirement in roots]
    while queue:
        parent, requirement = queue.pop(0)
        name = canonical(requirement.name)
        dist = dists.get(name)
        if dist is None:
            errors.append(f"{requirement} (needed by {parent}) is not installed")
            continue
        version = Version(dist.version)
        if requirement.specifier and not requirement.specifier.contains(version, prereleases=True):
            errors.append(f"{requirement} (needed by {parent}) but {dist.version} is installed")
        via.setdefault(name, set()).add(parent)
        new_extras = set(requirement.extras) - extras_of.get(name, set())
        if name in reached and not new_extras:
            continue
        reached[name] = dist
        extras_of.setdefault(name, set()).update(requirement.extras)
        for line in dist.requires or []:
            child = Requirement(line)
            if applies(child, extras_of[name]):
                queue.append((dist.metadata["Name"], child))
    return reached, via, errors


def lock_text(reached: dict, via: dict) -> str:
    lines = [HEADER.format(python=f"{sys.version_info.major}.{sys.version_info.minor}")]
    for name in sorted(reached):
        dist = reached[name]
        public = Version(dist.version).public
        sources = sorted(via[name], key=canonical)
        note = "requirements.in" if "requirements.in" in sources else "via " + ", ".join(sources)
        lines.append(f"{dist.metadata['Name']}=={public}  # {note}\n")
    return "".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="compare with requirements.txt instead of writing it")
    args = parser.parse_args()

    dists = installed()
    roots = [requirement for requirement in read_in(IN_FILE) if applies(requirement, set())]
    reached, via, errors = closure(roots, dists)
    cuda = sorted(name for name in reached if CUDA_NAME.match(name))
    if cuda:
        errors.append(f"CUDA packages in the closure ({', '.join(cuda)}): install the CPU build, torch==2.13.0, first")
    if errors:
        print("\n".join(f"error: {e}" for e in errors), file=sys.stderr)
        return 1

    text = lock_text(reached, via)
    unused = sorted(set(dists) - set(reached) - {"pip"})
    if args.check:
        if LOCK_FILE.exists() and LOCK_FILE.read_text() == text:
            print(f"{LOCK_FILE.name} is up to date ({len(reached)} packages)")
            return 0
        print(f"{LOCK_FILE.name} is not what requirements.in and the venv give: run `make lock`", file=sys.stderr)
        return 1
    LOCK_FILE.write_text(text)
    print(f"wrote {LOCK_FILE.name}: {len(reached)} packages")
    if unused:
        print(f"installed but not needed by requirements.in (left out): {', '.join(unused)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
