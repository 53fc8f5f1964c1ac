# Collects the names that code outside a repository defines or calls, in the Python
# environment a view will run under. Run by schrodinger as:
#     python3 envscan.py fingerprint
#     python3 envscan.py scan
# and prints one JSON document on stdout. Never imports third-party code: pure-Python
# sources are read with `ast`; only builtin and extension modules of the stdlib are imported
# (they have no source to read).
import ast
import builtins
import json
import keyword
import os
import sys
import sysconfig

SCAN_VERSION = 10
SKIP_DIR_NAMES = {"__pycache__", "test", "tests", "idle_test", "testing"}
# Folders where a package keeps private copies of other packages (pip/_vendor/packaging).
VENDOR_DIR_NAMES = {"_vendor", "vendor", "_vendored", "vendored"}


def roots():
    paths = sysconfig.get_paths()
    stdlib = os.path.realpath(paths["stdlib"])
    site = []
    for key in ("purelib", "platlib"):
        p = os.path.realpath(paths[key])
        if p not in site and os.path.isdir(p):
            site.append(p)
    for p in sys.path:
        rp = os.path.realpath(p) if p else ""
        if rp and os.path.isdir(rp) and rp not in site and rp != stdlib and "site-packages" in rp:
            site.append(rp)
    return stdlib, site


def fingerprint():
    stdlib, site = roots()
    parts = [sys.executable, sys.version, str(SCAN_VERSION), stdlib]
    for d in site:
        try:
            parts.append("%s:%d" % (d, os.stat(d).st_mtime_ns))
            for e in sorted(os.listdir(d)):
                parts.append(e)
        except OSError:
            pass
    return {"fingerprint": "\n".join(parts)}


class Collector(ast.NodeVisitor):
    def __init__(self, names, imports):
        self.names = names
        self.imports = imports

    def add(self, n):
        if n:
            self.names.add(n)

    def visit_FunctionDef(self, node):
        self.add(node.name)
        a = node.args
        for arg in a.posonlyargs + a.args + a.kwonlyargs:
            self.add(arg.arg)
        if a.vararg:
            self.add(a.vararg.arg)
        if a.kwarg:
            self.add(a.kwarg.arg)
        self.generic_visit(node)

    visit_AsyncFunctionDef = visit_FunctionDef

    def visit_ClassDef(self, node):
        self.add(node.name)
        for stmt in node.body:
            for t in targets(stmt):
                self.add(t)
        self.generic_visit(node)

    def visit_Module(self, node):
        for stmt in node.body:
            for t in targets(stmt):
                self.add(t)
        self.generic_visit(node)

    def visit_Attribute(self, node):
        # Attributes outside code reads or writes (obj.read(), self.seconds = ...).
        self.add(node.attr)
        self.generic_visit(node)

    def visit_keyword(self, node):
        self.add(node.arg)
        self.generic_visit(node)

    def visit_ImportFrom(self, node):
        for a in node.names:
            self.add(a.name)
        if node.level == 0 and node.module:
            self.imports.add(node.module.split(".")[0])
        self.generic_visit(node)

    def visit_Import(self, node):
        for a in node.names:
            self.imports.add(a.name.split(".")[0])
        self.generic_visit(node)


def collect(jobs):
    groups = {}
    imports = {}
    for group, f in jobs:
        names = groups.setdefault(group, set())
        imps = imports.setdefault(group, set())
        try:
            with open(f, "rb") as fh:
                src = fh.read()
            tree = ast.parse(src, f)
        except (SyntaxError, ValueError, OSError, RecursionError, MemoryError):
            continue
        try:
            Collector(names, imps).visit(tree)
        except RecursionError:
            continue
    return groups, imports


def targets(stmt):
    if isinstance(stmt, ast.Assign):
        for t in stmt.targets:
            yield from names_of(t)
    elif isinstance(stmt, (ast.AnnAssign, ast.AugAssign)):
        yield from names_of(stmt.target)
    elif isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        yield stmt.name
    elif isinstance(stmt, (ast.Import, ast.ImportFrom)):
        for a in stmt.names:
            yield (a.asname or a.name).split(".")[0]


def names_of(t):
    if isinstance(t, ast.Name):
        yield t.id
    elif isinstance(t, (ast.Tuple, ast.List)):
        for e in t.elts:
            yield from names_of(e)


def vendored_group(host, rel):
    """The group of a file of site-packages package `host` that sits in a vendor folder:
    its dotted import path up to the vendored package (`pip._vendor.packaging` for
    `_vendor/packaging/version.py`), else None. Dotted, so a top-level import of the same name
    (which never loads the private copy) does not reach it."""
    parts = rel.split(os.sep)
    for i, part in enumerate(parts[:-1]):
        if part in VENDOR_DIR_NAMES:
            name = parts[i + 1]
            if name.endswith(".py"):
                name = name[:-3]
            if name.isidentifier() and name != "__init__":
                return ".".join([host] + parts[:i + 1] + [name])
    return None


def py_files(top, skip_dirs, skip_under=None):
    for dirpath, dirnames, filenames in os.walk(top):
        # Test suites define names no library user calls; site-packages nested in the
        # stdlib folder is walked on its own.
        # A venv's stdlib folder is the base interpreter's, and holds that interpreter's own
        # site-packages, which the venv cannot import: it is never part of the stdlib.
        dirnames[:] = [
            d for d in dirnames
            if d not in SKIP_DIR_NAMES
            and not (dirpath == skip_under and d in ("site-packages", "dist-packages"))
            and os.path.realpath(os.path.join(dirpath, d)) not in skip_dirs
        ]
        for f in filenames:
            if f.endswith(".py") or f.endswith(".pyi"):
                yield os.path.join(dirpath, f)


def scan():
    """Names grouped by where they come from: "" for the stdlib, builtins and extension
    modules, else the site-packages entry (package or module name) that defines them, so a
    repository installed into the environment can drop its own group."""
    base = set(keyword.kwlist) | set(getattr(keyword, "softkwlist", []))
    base |= set(dir(builtins))
    modules = set(sys.stdlib_module_names) | set(sys.builtin_module_names)
    for v in vars(builtins).values():
        if isinstance(v, type):
            base |= set(dir(v))
    stdlib, site = roots()
    jobs = [("", f) for f in py_files(stdlib, set(site), skip_under=stdlib)]
    vendored = {}
    for d in site:
        try:
            entries = sorted(os.listdir(d))
        except OSError:
            continue
        for e in entries:
            p = os.path.join(d, e)
            if e.endswith(".py"):
                modules.add(e[:-3])
                jobs.append((e[:-3], p))
            elif os.path.isdir(p) and e.isidentifier():
                modules.add(e)
                for f in py_files(p, set()):
                    g = vendored_group(e, os.path.relpath(f, p))
                    if g:
                        vendored.setdefault(e, set()).add(g)
                    jobs.append((g or e, f))
    jobs.sort()
    chunks = [jobs[i::4] for i in range(4)]
    groups = {"": base}
    try:
        import multiprocessing
        with multiprocessing.Pool(min(4, os.cpu_count() or 1)) as pool:
            parts = pool.map(collect, chunks)
    except (ImportError, OSError):
        parts = [collect(c) for c in chunks]
    group_imports = {}
    for part, imps in parts:
        for g, names in part.items():
            groups.setdefault(g, set()).update(names)
        for g, i in imps.items():
            group_imports.setdefault(g, set()).update(i)
    # A vendored copy is its own group, reached through the package that carries it; so a
    # repository's own code vendored elsewhere (setuptools/_vendor/more_itertools) is dropped
    # with the repository's other copies instead of freezing every name it defines.
    for host, gs in vendored.items():
        group_imports.setdefault(host, set()).update(gs)
    # Builtin and extension modules have no source: import them and list their names.
    dynload = set()
    try:
        import importlib.machinery as m
        ext = tuple(m.EXTENSION_SUFFIXES)
        dl = os.path.join(stdlib, "lib-dynload")
        if os.path.isdir(dl):
            for e in os.listdir(dl):
                if e.endswith(ext):
                    dynload.add(e.split(".")[0])
    except Exception:
        pass
    import warnings
    warnings.simplefilter("ignore")
    for mod in sorted(set(sys.builtin_module_names) | dynload):
        if mod in ("antigravity", "this", "__main__"):
            continue
        try:
            obj = __import__(mod)
        except Exception:
            continue
        for n in dir(obj):
            base.add(n)
            try:
                v = getattr(obj, n)
            except Exception:
                continue
            if isinstance(v, type):
                base |= set(dir(v))
    out = {}
    for g, names in groups.items():
        out[g] = sorted(n for n in names if isinstance(n, str) and n.isidentifier())
    imports_out = {g: sorted(i) for g, i in group_imports.items() if g}
    # Apart from the rest: a name a function reads without defining it may be one of these.
    builtin_names = sorted(n for n in dir(builtins) if n.isidentifier())
    return {"groups": out, "imports": imports_out, "modules": sorted(modules), "files": len(jobs),
            "builtins": builtin_names}


def main():
    if len(sys.argv) >= 2 and sys.argv[1] == "fingerprint":
        out = fingerprint()
    elif len(sys.argv) == 2 and sys.argv[1] == "scan":
        out = scan()
    else:
        sys.stderr.write("usage: envscan.py fingerprint | scan\n")
        sys.exit(2)
    json.dump(out, sys.stdout)


if __name__ == "__main__":
    main()
