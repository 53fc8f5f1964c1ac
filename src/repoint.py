"""Find and check editable installs of a checkout in the running Python environment.

Run by `schrodinger repoint` with the environment's own interpreter (isolated mode):

    repoint.py find DIR...      JSON list of installed distributions that are editable
                                installs of DIR (or of anything below it)
    repoint.py check DIR... --view VIEW... -- NAME...
                                JSON list of places in the environment's import machinery
                                and install metadata that still name DIR or NAME

An editable install is recognised by every mechanism pip and setuptools use: a
`direct_url.json` with `dir_info.editable` (PEP 660, PEP 610), a `.egg-link` file
(`setup.py develop`), and `.pth` lines or `__editable__` finders that name the directory.
"""

import importlib.metadata as md
import json
import os
import re
import sys
import sysconfig
from urllib.parse import unquote, urlparse


def site_dirs():
    dirs = []
    for key in ("purelib", "platlib"):
        p = sysconfig.get_paths().get(key)
        if p and p not in dirs and os.path.isdir(p):
            dirs.append(p)
    return dirs


def under(path, roots):
    path = os.path.normpath(path)
    for r in roots:
        r = os.path.normpath(r)
        if path == r or path.startswith(r.rstrip("/") + "/"):
            return True
    return False


def url_path(url):
    u = urlparse(url)
    if u.scheme != "file":
        return None
    return unquote(u.path)


def find(roots):
    found = {}
    for dist in md.distributions():
        name = dist.metadata.get("Name")
        if not name:
            continue
        where = None
        text = dist.read_text("direct_url.json")
        if text:
            try:
                info = json.loads(text)
            except ValueError:
                info = {}
            path = url_path(info.get("url", ""))
            if path and info.get("dir_info", {}).get("editable") and under(path, roots):
                where = path
        # `setup.py develop` leaves the egg-info inside the checkout itself.
        loc = getattr(dist, "_path", None)
        if where is None and loc is not None and under(str(loc), roots):
            where = str(loc)
        if where is not None:
            found[name] = {"name": name, "version": dist.version, "location": where}
    for d in site_dirs():
        for f in os.listdir(d):
            if f.endswith(".egg-link"):
                try:
                    first = open(os.path.join(d, f)).readline().strip()
                except OSError:
                    continue
                if under(first, roots):
                    name = f[: -len(".egg-link")]
                    found.setdefault(name, {"name": name, "version": "", "location": first})
    return sorted(found.values(), key=lambda x: x["name"].lower())


def words(text):
    return set(re.findall(r"[A-Za-z_][A-Za-z0-9_]*", text))


def check(roots, view, names):
    """Places an import, `pip list` or `pip show` reads that still name a root or a name:
    every `.pth` file, `.egg-link` and editable finder, and the metadata of every
    distribution installed from the original or from the view (other packages may name the
    project as a dependency or a plugin group: that is outside code, not the install)."""
    wanted = set(names) | {n.replace("-", "_") for n in names}
    hits = []

    def look(path):
        try:
            text = open(path, encoding="utf-8", errors="replace").read()
        except OSError:
            return
        if any(r in text for r in roots):
            hits.append({"file": path, "names": "a path into the original"})
        bad = sorted(wanted & words(text))
        if bad:
            hits.append({"file": path, "names": ", ".join(bad)})

    for d in site_dirs():
        for f in sorted(os.listdir(d)):
            if f.endswith((".pth", ".egg-link")) or (f.startswith("__editable__") and f.endswith(".py")):
                look(os.path.join(d, f))
    for dist in md.distributions():
        name = dist.metadata.get("Name") or ""
        info = {}
        text = dist.read_text("direct_url.json")
        if text:
            try:
                info = json.loads(text)
            except ValueError:
                pass
        path = url_path(info.get("url", "")) or ""
        mine = under(path, roots + view) if path else False
        if not (mine or name in wanted or name.replace("-", "_") in wanted):
            continue
        loc = getattr(dist, "_path", None)
        if loc is None:
            continue
        for m in ("METADATA", "PKG-INFO", "RECORD", "direct_url.json", "top_level.txt",
                  "entry_points.txt", "SOURCES.txt"):
            p = os.path.join(str(loc), m)
            if os.path.exists(p):
                look(p)
    return hits


def main(argv):
    if not argv:
        raise SystemExit("usage: repoint.py find DIR... | check DIR... -- NAME...")
    mode, rest = argv[0], argv[1:]
    if mode == "find":
        print(json.dumps(find(rest)))
    elif mode == "check":
        # check ORIGINAL... --view VIEW... -- NAME...
        i = rest.index("--view")
        j = rest.index("--")
        print(json.dumps(check(rest[:i], rest[i + 1:j], rest[j + 1:])))
    else:
        raise SystemExit("unknown mode " + mode)


if __name__ == "__main__":
    main(sys.argv[1:])
