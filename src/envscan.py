# Collects the names that code outside a repository defines or calls, in the Python
# environment a view will run under. Run by schrodinger as:
#     python3 envscan.py fingerprint
#     python3 envscan.py scan
# and prints one JSON document on stdout. Pure-Python sources are read with `ast`, never
# imported. Builtin and extension modules have no source: they are imported in a child
# process of their own (`cmodules`), started with -I -S so that no site-packages directory
# is on its path (an extension module of a site-packages package is loaded from its file and
# cannot pull in Python code of other packages), with standard input and output pointed at
# /dev/null (a module that prints cannot corrupt the report), a time limit per module and for
# all of them; a module that fails, hangs or kills the child is left out and the rest go on.
import ast
import builtins
import types
import configparser
import importlib
import json
import keyword
import os
import queue
import re
import subprocess
import struct
import sys
import sysconfig
import threading
import time

SCAN_VERSION = 22
SKIP_DIR_NAMES = {"__pycache__", "test", "tests", "idle_test", "testing"}
# Folders where a package keeps private copies of other packages (pip/_vendor/packaging).
VENDOR_DIR_NAMES = {"_vendor", "vendor", "_vendored", "vendored"}
# Seconds one builtin or extension module may take to import and list, and all of them.
C_MODULE_TIMEOUT = 10.0
C_SCAN_BUDGET = 60.0


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


HYPHENATED = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(?:-[A-Za-z0-9_]+)+")


class Collector(ast.NodeVisitor):
    def __init__(self, names, imports, loads, ep_groups):
        self.names = names
        self.imports = imports
        self.loads = loads
        self.ep_groups = ep_groups
        # This file's name parts and identifier strings (see `compared_part`).
        self.parts = set()
        self.strings = set()
        # Per open function (or the module): the names a `for` or a comprehension binds,
        # and the parts compared with a plain name there (see `compared`).
        self.scopes = []
        # Dotted modules the file imports when it is imported (and names it imports from
        # them, which may be modules), relative imports resolved against `package`, the
        # package the file is in. An import inside a function runs only when it is called,
        # most often for an optional dependency (`hypothesis.extra.numpy`), so it is left out.
        self.dotted = set()
        self.package = None
        # Functions that set an attribute named by one of their parameters (minidom's
        # `defproperty(klass, name, doc)` ends in `setattr(klass, name, prop)`): function
        # name -> {("p", position) or ("k", parameter)}; and the identifier strings passed
        # to plain-name calls: function name -> {(key, string)}. Joined across the whole
        # environment in `scan`, since the setter and its calls live in different modules.
        self.setters = {}
        self.calls = {}
        # Whether the file spells `setattr` at all: most do not, and looking for setters walks
        # each function body a second time.
        self.sets_attributes = True

    def add(self, n):
        if n:
            self.names.add(n)

    def visit_FunctionDef(self, node):
        self.add(node.name)
        a = node.args
        keys = self.sets_attributes and attribute_setting_parameters(node)
        if keys:
            self.setters.setdefault(node.name, set()).update(keys)
        for arg in a.posonlyargs + a.args + a.kwonlyargs:
            self.add(arg.arg)
        if a.vararg:
            self.add(a.vararg.arg)
        if a.kwarg:
            self.add(a.kwarg.arg)
        self.scoped(node)

    def scoped(self, node):
        self.scopes.append((set(), []))
        self.generic_visit(node)
        bound, pending = self.scopes.pop()
        for name, part in pending:
            if name in bound:
                self.parts.add(part)

    visit_Lambda = scoped

    def enumerates(self, node):
        """Note the names a `for` or a comprehension binds, unless it walks a literal
        (`for attr in 'lineno', 'end_lineno'`), which holds no names of the repository."""
        if self.scopes and not isinstance(node.iter, (ast.Tuple, ast.List, ast.Set, ast.Constant)):
            self.scopes[-1][0].update(names_of(node.target))
        self.generic_visit(node)

    visit_For = visit_AsyncFor = visit_comprehension = enumerates

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
            # A module constant holding identifiers (`INNER_NAME = 'next_'`, a list of
            # them) names what the code compares names with: face rejects a middleware whose
            # first parameter is not `next_`.
            if isinstance(stmt, ast.Assign):
                v = stmt.value
                for item in v.elts if isinstance(v, (ast.Tuple, ast.List, ast.Set)) else [v]:
                    self.add(identifier_string(item))
        self.scoped(node)

    def visit_Attribute(self, node):
        # Attributes outside code reads or writes (obj.read(), self.seconds = ...).
        self.add(node.attr)
        self.generic_visit(node)

    def visit_keyword(self, node):
        self.add(node.arg)
        self.generic_visit(node)

    def visit_Constant(self, node):
        # Code that names an entry point group (a string equal to its name, `"pytest11"`)
        # loads its plugins.
        if isinstance(node.value, str) and node.value in self.ep_groups:
            self.loads.add(node.value)
        # A hyphenated name outside code holds as data (a plugin's name, `"logging-plugin"`,
        # a command-line option): the view swaps such a string like the identifier spelled
        # with underscores, so that identifier is an outside name too.
        if isinstance(node.value, str) and HYPHENATED.fullmatch(node.value.lstrip("-")):
            self.add(node.value.lstrip("-").replace("-", "_"))
        # An upper-case word outside code holds as data (`"NFKC"` for
        # `unicodedata.normalize`, an HTTP method): repository strings equal to it are that
        # data, whatever the repository calls the lower case.
        v = node.value
        if isinstance(v, str) and v.isidentifier() and v.isupper() and len(v) >= 2:
            self.add(v)
        if isinstance(v, str) and v.isidentifier():
            self.strings.add(v)

    def visit_Compare(self, node):
        # An identifier compared with a value (`param.name == 'self'`, `kind in ('args',
        # 'kwargs')`) is a name the code matches the repository's names against.
        operands = [node.left, *node.comparators]
        if all(isinstance(op, (ast.Eq, ast.NotEq, ast.In, ast.NotIn)) for op in node.ops):
            for e in operands:
                items = e.elts if isinstance(e, (ast.Tuple, ast.List, ast.Set)) else [e]
                for item in items:
                    self.add(identifier_string(item))
        # `f[:2] == 't_'`, `name[-4:] != '_opt'`, either side.
        if len(node.ops) == 1 and isinstance(node.ops[0], (ast.Eq, ast.NotEq)):
            a, b = node.left, node.comparators[0]
            for x, y in ((a, b), (b, a)):
                if isinstance(x, ast.Subscript) and isinstance(x.slice, ast.Slice):
                    sl = x.slice
                    if sl.step is None and (sl.lower is None) != (sl.upper is None):
                        self.compared(x.value, y, sl.lower is None)
        self.generic_visit(node)

    def compared(self, subject, e, prefix):
        """Record the string literal `e`, compared with the start or end of `subject`, as a
        name part if it is one (see `compared_part`) and `subject` is a plain name that a loop
        or comprehension of the same function binds: code that picks names by a part
        enumerates them (`for name in dir(cls)`, `[f for f in ldict if f[:2] == 't_']`),
        while a test on one name it is given (`name.startswith("is_")` to guess a strategy
        from a parameter's name) or on an attribute (`p.kind.name.startswith("VAR_")`)
        picks nothing from the repository."""
        if (
            isinstance(e, ast.Constant)
            and compared_part(e.value, prefix)
            and isinstance(subject, ast.Name)
            and self.scopes
        ):
            self.scopes[-1][1].append((subject.id, (e.value, prefix)))

    def visit_Dict(self, node):
        # A mapping keyed by identifiers is most often keyword arguments by another name
        # (face calls a middleware with `{'posargs_': ..., 'flags_': ...}` picked by its
        # parameter names).
        for k in node.keys:
            self.add(identifier_string(k))
        self.generic_visit(node)

    def visit_Subscript(self, node):
        # A string key outside code looks a mapping up by (`conv["thousands_sep"]` on the
        # mapping `locale.localeconv()` returns, which C code builds): the repository reads
        # that outside mapping by the same key, or hands outside code a mapping keyed by it.
        self.add(identifier_string(node.slice))
        self.generic_visit(node)

    def visit_Call(self, node):
        f = node.func
        name = f.attr if isinstance(f, ast.Attribute) else f.id if isinstance(f, ast.Name) else None
        # `setattr(obj, "name", ...)` and the other three are `obj.name` spelled as a call:
        # attributes outside code reads or writes, like `visit_Attribute`'s.
        if isinstance(f, ast.Name) and f.id in ATTRIBUTE_BUILTINS and len(node.args) >= 2:
            self.add(identifier_string(node.args[1]))
        if isinstance(f, ast.Name):
            for i, a in enumerate(node.args):
                v = identifier_string(a)
                if v:
                    self.calls.setdefault(f.id, set()).add((("p", i), v))
            for k in node.keywords:
                v = k.arg and identifier_string(k.value)
                if v:
                    self.calls.setdefault(f.id, set()).add((("k", k.arg), v))
        # The same lookup spelled as a method (`options.get("log_level")`).
        if isinstance(f, ast.Attribute) and name in MAPPING_LOOKUPS and node.args:
            self.add(identifier_string(node.args[0]))
        # Fields of a named tuple made from strings (`namedtuple("FullArgSpec", "args,
        # varargs, ...")`, `NamedTuple("Row", [("key", str)])`) are attributes of its values,
        # which the repository reads (`spec.varkw`) like any other outside attribute.
        if name in NAMED_TUPLE_FACTORIES:
            for n in named_tuple_fields(node):
                self.add(n)
        if isinstance(f, ast.Attribute) and name in ("startswith", "endswith") and node.args:
            a = node.args[0]
            for v in [a] if isinstance(a, ast.Constant) else getattr(a, "elts", []):
                self.compared(f.value, v, name == "startswith")
        self.generic_visit(node)

    def visit_ImportFrom(self, node):
        for a in node.names:
            self.add(a.name)
        if node.level == 0 and node.module:
            self.imports.add(node.module.split(".")[0])
        base = absolute_module(self.package, node.level, node.module)
        if base and len(self.scopes) == 1:
            self.dotted.add(base)
            self.dotted.update(base + "." + a.name for a in node.names if a.name != "*")
        self.generic_visit(node)

    def visit_Import(self, node):
        for a in node.names:
            self.imports.add(a.name.split(".")[0])
            if len(self.scopes) == 1:
                self.dotted.add(a.name)
        self.generic_visit(node)


MAPPING_LOOKUPS = frozenset({"get", "pop", "setdefault"})
ATTRIBUTE_BUILTINS = frozenset({"getattr", "hasattr", "setattr", "delattr"})


def attribute_setting_parameters(fn):
    """Keys (`("p", position)`, `("k", name)`) of the parameters of `fn` that its body
    passes as the name to `setattr`, so that a caller's string for them is an attribute."""
    a = fn.args
    positional = [x.arg for x in a.posonlyargs + a.args]
    params = set(positional) | {x.arg for x in a.kwonlyargs}
    named = set()
    for node in ast.walk(fn):
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
                and node.func.id == "setattr" and len(node.args) >= 2
                and isinstance(node.args[1], ast.Name) and node.args[1].id in params):
            named.add(node.args[1].id)
    keys = {("k", n) for n in named}
    keys |= {("p", i) for i, n in enumerate(positional) if n in named}
    return keys
NAMED_TUPLE_FACTORIES = frozenset({"namedtuple", "NamedTuple"})


def identifier_string(e):
    """The value of a string literal that is an identifier, else None."""
    if isinstance(e, ast.Constant) and isinstance(e.value, str) and e.value.isidentifier():
        return e.value
    return None


def named_tuple_fields(call):
    """Field names of a `namedtuple(typename, field_names)` or `NamedTuple(typename,
    fields)` call given as literals: one string split at commas and spaces, or a list or
    tuple of strings or of (name, type) pairs."""
    spec = call.args[1] if len(call.args) >= 2 else None
    for k in call.keywords:
        if k.arg in ("field_names", "fields"):
            spec = k.value
    if isinstance(spec, ast.Constant) and isinstance(spec.value, str):
        return [n for n in spec.value.replace(",", " ").split() if n.isidentifier()]
    out = []
    if isinstance(spec, (ast.List, ast.Tuple)):
        for e in spec.elts:
            if isinstance(e, (ast.Tuple, ast.List)) and e.elts:
                e = e.elts[0]
            n = identifier_string(e)
            if n:
                out.append(n)
    return out


def absolute_module(package, level, module):
    """The dotted module `from <level dots><module> import ...` names in a file of
    `package` (None at top level), else None."""
    if level == 0:
        return module
    if package is None:
        return None
    base = package.split(".")
    if level - 1 >= len(base):
        return None
    base = base[: len(base) - (level - 1)]
    return ".".join(base + ([module] if module else []))


NAME_PART = re.compile(r"[A-Za-z0-9_]*[A-Za-z][A-Za-z0-9_]*")


def compared_part(v, prefix):
    """Whether a string compared with the start (`prefix`) or end of values is a name part
    that code picks names by: one ending in `_` compared with a prefix (`f[:2] == 't_'`,
    `name.startswith('do_')`), or starting with `_` compared with a suffix. Code that does
    this collects names from a namespace it is handed (PLY's `lex(module=obj)` takes every
    `t_*` of `obj`, in definition order; `cmd.Cmd` runs the command `quit` by its method
    `do_quit`), so the rest of each such name is data."""
    return (
        isinstance(v, str)
        and NAME_PART.fullmatch(v) is not None
        and (v.endswith("_") if prefix else v.startswith("_"))
    )


def top_module(group, f):
    """The top-level module a scanned file belongs to, as code imports it."""
    if group:
        return group.split(".")[0]
    rel = os.path.relpath(f, roots()[0])
    first = rel.split(os.sep)[0]
    return first[:-3] if first.endswith(".py") else first


def collect(args):
    jobs, ep_groups = args
    groups = {}
    imports = {}
    loads = {}
    uses = {}
    parts = {}
    edges = {}
    setters = {}
    calls = {}
    stdlib_names = set(sys.stdlib_module_names)
    for group, f, mp in jobs:
        names = groups.setdefault(group, set())
        imps = imports.setdefault(group, set())
        lds = loads.setdefault(group, set())
        try:
            with open(f, "rb") as fh:
                src = fh.read()
            tree = ast.parse(src, f)
        except (SyntaxError, ValueError, OSError, RecursionError, MemoryError):
            continue
        file_imports = set()
        try:
            collector = Collector(names, file_imports, lds, ep_groups)
            collector.package = package_of(mp, f)
            collector.sets_attributes = b"setattr" in src
            collector.visit(tree)
            for fn, keys in collector.setters.items():
                setters.setdefault(fn, set()).update(keys)
            for fn, passed in collector.calls.items():
                calls.setdefault(group, {}).setdefault(fn, set()).update(passed)
            if mp:
                top = mp.split(".")[0]
                edges[mp] = {d for d in collector.dotted if d.split(".")[0] == top} - {mp}
            imps |= file_imports
            # Only files that import a module from outside the stdlib and their own package
            # can use such a module.
            skip = stdlib_names | {group.split(".")[0]}
            if file_imports - skip:
                for m, u in module_uses(tree, skip).items():
                    uses.setdefault(group, {}).setdefault(m, set()).update(u)
            if collector.parts:
                # With the words the same code spells as strings: the rests it may compare
                # with its own constants (PLY's `t_ignore`, `t_error`).
                entry = parts.setdefault(mp or top_module(group, f), (set(), set()))
                entry[0].update(collector.parts)
                entry[1].update(collector.strings)
        except RecursionError:
            continue
    return groups, imports, loads, uses, parts, edges, setters, calls


def package_of(mp, f):
    """The package a module file with dotted path `mp` sits in: itself for an `__init__`,
    else its parent (None at top level or for a path that is no module)."""
    if not mp:
        return None
    if os.path.basename(f).startswith("__init__."):
        return mp
    return mp.rpartition(".")[0] or None


def reaching(module_parts, edges):
    """For each module, the modules in `module_parts` it imports, itself or through other
    modules of its own package: the code that runs when a repository uses it."""
    back = {}
    for m, ds in edges.items():
        for d in ds:
            back.setdefault(d, set()).add(m)
    reach = {}
    for p in module_parts:
        seen = {p}
        todo = [p]
        while todo:
            for m in back.get(todo.pop(), ()):
                if m not in seen:
                    seen.add(m)
                    todo.append(m)
        for m in seen:
            reach.setdefault(m, set()).add(p)
    return reach


def root_name(e):
    """The name a chain of attributes, calls and subscripts starts from (`a` for
    `a.b(c)[d].e`), else None."""
    while True:
        if isinstance(e, ast.Attribute):
            e = e.value
        elif isinstance(e, ast.Call):
            e = e.func
        elif isinstance(e, (ast.Subscript, ast.Starred)):
            e = e.value
        elif isinstance(e, ast.Await):
            e = e.value
        elif isinstance(e, ast.Name):
            return e.id
        else:
            return None


def target_names(t):
    if isinstance(t, ast.Name):
        yield t.id
    elif isinstance(t, (ast.Tuple, ast.List)):
        for e in t.elts:
            yield from target_names(e)
    elif isinstance(t, ast.Starred):
        yield from target_names(t.value)


def module_uses(tree, skip):
    """The names a file uses on each module it imports (top-level name -> names), for modules
    not in `skip`: the module path parts and names it imports, attributes and keyword
    arguments on anything derived from them (`m.f(x, key=1).attr`, names assigned from such
    an expression, functions returning one, parameters annotated with one), the names of
    functions decorated by them with their parameters (hook implementations, called by the
    module with keyword arguments), and the methods, class attributes and `self` attributes
    of classes derived from them (overrides the module calls back). Flow-insensitive over the
    file: a name bound to such a value anywhere counts everywhere, which can only add names."""
    bound = {}
    uses = {}

    def bind(name, mods):
        have = bound.setdefault(name, set())
        if mods - have:
            have |= mods
            return True
        return False

    flows = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for a in node.names:
                parts = a.name.split(".")
                if parts[0] in skip:
                    continue
                uses.setdefault(parts[0], set()).update(parts[1:])
                if a.asname:
                    uses[parts[0]].add(a.asname)
                bind(a.asname or parts[0], {parts[0]})
        elif isinstance(node, ast.ImportFrom):
            if node.level or not node.module:
                continue
            parts = node.module.split(".")
            if parts[0] in skip:
                continue
            u = uses.setdefault(parts[0], set())
            u.update(parts[1:])
            for a in node.names:
                if a.name != "*":
                    u.add(a.name)
                    bind(a.asname or a.name, {parts[0]})
        elif isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign, ast.NamedExpr,
                               ast.With, ast.AsyncWith, ast.For, ast.AsyncFor,
                               ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            flows.append(node)
    if not bound:
        return {}

    def mods_of(e):
        return bound.get(root_name(e), set()) if e is not None else set()

    # Propagate along assignments until nothing changes (a few rounds at most in practice).
    for _ in range(6):
        changed = False
        for node in flows:
            if isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign, ast.NamedExpr)):
                m = mods_of(node.value) | (mods_of(node.annotation)
                                           if isinstance(node, ast.AnnAssign) else set())
                if m:
                    ts = node.targets if isinstance(node, ast.Assign) else [node.target]
                    for t in ts:
                        for n in target_names(t):
                            changed |= bind(n, m)
            elif isinstance(node, (ast.With, ast.AsyncWith)):
                for item in node.items:
                    m = mods_of(item.context_expr)
                    if m and item.optional_vars is not None:
                        for n in target_names(item.optional_vars):
                            changed |= bind(n, m)
            elif isinstance(node, (ast.For, ast.AsyncFor)):
                m = mods_of(node.iter)
                if m:
                    for n in target_names(node.target):
                        changed |= bind(n, m)
            elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                a = node.args
                for arg in a.posonlyargs + a.args + a.kwonlyargs:
                    m = mods_of(arg.annotation)
                    if m:
                        changed |= bind(arg.arg, m)
                m = mods_of(node.returns)
                for sub in ast.walk(node):
                    if isinstance(sub, ast.Return):
                        m = m | mods_of(sub.value)
                if m:
                    changed |= bind(node.name, m)
                for d in node.decorator_list:
                    for mod in mods_of(d):
                        u = uses.setdefault(mod, set())
                        u.add(node.name)
                        u.update(x.arg for x in a.posonlyargs + a.args + a.kwonlyargs)
            elif isinstance(node, ast.ClassDef):
                m = set()
                for b in node.bases + [k.value for k in node.keywords]:
                    m |= mods_of(b)
                if m:
                    changed |= bind(node.name, m)
        if not changed:
            break

    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute):
            for mod in mods_of(node):
                uses.setdefault(mod, set()).add(node.attr)
        elif isinstance(node, ast.Call):
            mods = mods_of(node.func)
            if isinstance(node.func, ast.Name) and node.func.id in (
                    "getattr", "hasattr", "setattr", "delattr") and len(node.args) >= 2:
                a = node.args[1]
                if isinstance(a, ast.Constant) and isinstance(a.value, str):
                    for mod in mods_of(node.args[0]):
                        uses.setdefault(mod, set()).add(a.value)
            for mod in mods:
                uses.setdefault(mod, set()).update(k.arg for k in node.keywords if k.arg)
        elif isinstance(node, ast.ClassDef):
            mods = set()
            for b in node.bases + [k.value for k in node.keywords]:
                mods |= mods_of(b)
            if mods:
                derived = class_uses(node)
                for mod in mods:
                    uses.setdefault(mod, set()).update(derived)
    return uses


def class_uses(node):
    """Names a class derived from an outside class shares with it: its methods and class
    attributes, and the attributes and keyword arguments its methods use on `self` (or its
    first parameter) and on `super()`."""
    out = set()
    for stmt in node.body:
        out.update(targets(stmt))
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
            params = stmt.args.posonlyargs + stmt.args.args
            selves = {"super"} | ({params[0].arg} if params else set())
            for sub in ast.walk(stmt):
                if isinstance(sub, ast.Attribute) and root_name(sub) in selves:
                    out.add(sub.attr)
                elif isinstance(sub, ast.Call) and root_name(sub.func) in selves:
                    out.update(k.arg for k in sub.keywords if k.arg)
    return out


# Statements whose bodies bind names in the enclosing module or class body: a module global
# set inside `try:`/`if ...:` (`_UuidCreate = getattr(_uuid, ...)` in uuid.py) is as much an
# attribute of the module as one at the top.
BLOCKS = (ast.If, ast.Try, ast.With, ast.AsyncWith, ast.For, ast.AsyncFor, ast.While) + (
    (ast.TryStar,) if hasattr(ast, "TryStar") else ()
)


def targets(stmt):
    if isinstance(stmt, BLOCKS):
        if isinstance(stmt, (ast.For, ast.AsyncFor)):
            yield from names_of(stmt.target)
        if isinstance(stmt, (ast.With, ast.AsyncWith)):
            for item in stmt.items:
                if item.optional_vars is not None:
                    yield from names_of(item.optional_vars)
        bodies = [stmt.body, stmt.orelse if hasattr(stmt, "orelse") else []]
        bodies.append(getattr(stmt, "finalbody", []))
        bodies.extend(h.body for h in getattr(stmt, "handlers", []))
        for body in bodies:
            for s in body:
                yield from targets(s)
    elif isinstance(stmt, ast.Assign):
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


def extension_suffixes():
    try:
        import importlib.machinery as m
        return tuple(m.EXTENSION_SUFFIXES)
    except Exception:
        return (".so",)


def module_files(top, skip_dirs, skip_under=None):
    """Python sources, stubs and extension modules under `top`."""
    ext = extension_suffixes()
    # The stdlib's `test.support` is a library that other projects' test suites import
    # (`from test.support import os_helper`, jaraco.test's `try_import("os_helper")`), so its
    # names are outside names; the rest of `test` is CPython's own suite.
    stdlib_test = os.path.join(skip_under, "test") if skip_under else None
    for dirpath, dirnames, filenames in os.walk(top):
        # Test suites define names no library user calls; site-packages nested in the
        # stdlib folder is walked on its own.
        # A venv's stdlib folder is the base interpreter's, and holds that interpreter's own
        # site-packages, which the venv cannot import: it is never part of the stdlib.
        in_stdlib_test = dirpath == stdlib_test
        dirnames[:] = [
            d for d in dirnames
            if (d not in SKIP_DIR_NAMES or (dirpath == skip_under and d == "test"))
            and not (in_stdlib_test and d != "support")
            and not (dirpath == skip_under and d in ("site-packages", "dist-packages"))
            and os.path.realpath(os.path.join(dirpath, d)) not in skip_dirs
        ]
        for f in filenames:
            if in_stdlib_test and f != "__init__.py":
                continue
            if f.endswith(".py") or f.endswith(".pyi") or f.endswith(ext):
                yield os.path.join(dirpath, f)


# A JSON document larger than this is not read for its keys (a package's data, not a
# dump of one).
JSON_DATA_LIMIT = 2 << 20


def json_data_keys(top, host):
    """Identifier keys of the JSON documents a site-packages package ships as data, by the
    group of the file (see `vendored_group`): outside code reads such a document and hands
    it to the repository, which looks its keys up by name (jsonschema validates with the
    metaschemas of `jsonschema_specifications`, keyed by `allOf`, `properties`). Files are
    taken by their content (an object or array first), whatever their name: those metaschemas
    have no extension."""
    ext = extension_suffixes()
    out = {}
    for dirpath, dirnames, filenames in os.walk(top):
        dirnames[:] = [d for d in dirnames if d not in SKIP_DIR_NAMES and d != "__pycache__"]
        for f in filenames:
            if f.endswith((".py", ".pyi", ".pyc")) or f.endswith(ext):
                continue
            p = os.path.join(dirpath, f)
            try:
                if os.path.getsize(p) > JSON_DATA_LIMIT:
                    continue
                with open(p, "rb") as fh:
                    data = fh.read()
            except OSError:
                continue
            if data.lstrip()[:1] not in (b"{", b"["):
                continue
            try:
                doc = json.loads(data)
            except (ValueError, RecursionError):
                continue
            group = vendored_group(host, os.path.relpath(p, top)) or host
            keys = out.setdefault(group, set())
            stack = [doc]
            while stack:
                v = stack.pop()
                if isinstance(v, dict):
                    keys.update(k for k in v if isinstance(k, str) and k.isidentifier())
                    stack.extend(v.values())
                elif isinstance(v, list):
                    stack.extend(v)
    return out


def module_path(rel):
    """The dotted import path of a module file relative to its import root
    (`urllib/robotparser.py` -> `urllib.robotparser`, `pkg/__init__.pyi` -> `pkg`,
    `pkg/_speed.cpython-311-x86_64-linux-gnu.so` -> `pkg._speed`), else None."""
    parts = rel.split(os.sep)
    parts[-1] = parts[-1].split(".")[0]
    if parts[-1] == "__init__":
        parts.pop()
    if parts and all(p.isidentifier() for p in parts):
        return ".".join(parts)
    return None


def entry_points(site):
    """Entry point group -> module paths of its plugins, from every installed distribution's
    entry_points.txt."""
    out = {}
    for d in site:
        try:
            entries = sorted(os.listdir(d))
        except OSError:
            continue
        for e in entries:
            if not (e.endswith(".dist-info") or e.endswith(".egg-info")):
                continue
            cp = configparser.ConfigParser(interpolation=None, delimiters=("=",))
            cp.optionxform = str
            try:
                cp.read(os.path.join(d, e, "entry_points.txt"), encoding="utf-8")
            except (configparser.Error, OSError, UnicodeDecodeError):
                continue
            for section in cp.sections():
                for value in cp[section].values():
                    mod = value.split(":")[0].split("[")[0].strip()
                    if mod and all(p.isidentifier() for p in mod.split(".")):
                        out.setdefault(section, set()).add(mod)
    return out


def group_of(mod, groups):
    """The scan group holding module path `mod`: its longest dotted prefix that is a group."""
    parts = mod.split(".")
    for i in range(len(parts), 0, -1):
        g = ".".join(parts[:i])
        if g in groups:
            return g
    return None


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
    # Interpreter types are known by a `__name__` that no module binds (`types.CellType` is
    # "cell", `types.FunctionType` "function"): code compares `type(x).__name__` with it.
    for v in vars(types).values():
        if isinstance(v, type):
            base.add(v.__name__)
    stdlib, site = roots()
    ext = extension_suffixes()
    paths = {"": set()}
    jobs = []
    # Builtin and extension modules, which have no source: (group, module, file or None).
    cmods = [("", m, None) for m in sorted(sys.builtin_module_names)]
    dl = os.path.join(stdlib, "lib-dynload")
    for f in module_files(stdlib, set(site), skip_under=stdlib):
        rel = os.path.relpath(f, stdlib)
        if rel.startswith("lib-dynload" + os.sep):
            if f.endswith(ext):
                cmods.append(("", os.path.basename(f).split(".")[0], None))
                paths[""].add(os.path.basename(f).split(".")[0])
            continue
        mp = module_path(rel)
        if mp:
            paths[""].add(mp)
        if not f.endswith(ext):
            jobs.append(("", f, mp))
    if not os.path.isdir(dl):
        cmods += [("", m, None) for m in dynload_modules(ext)]
    vendored = {}
    # Package folders, walked again later for their JSON data (`json_data_keys`).
    package_dirs = []
    for d in site:
        try:
            entries = sorted(os.listdir(d))
        except OSError:
            continue
        for e in entries:
            p = os.path.join(d, e)
            if e.endswith(".py"):
                modules.add(e[:-3])
                jobs.append((e[:-3], p, e[:-3]))
                paths.setdefault(e[:-3], set()).add(e[:-3])
            elif e.endswith(ext) and e.split(".")[0].isidentifier():
                name = e.split(".")[0]
                modules.add(name)
                cmods.append((name, name, p))
                paths.setdefault(name, set()).add(name)
            elif os.path.isdir(p) and e.isidentifier() and e != "__pycache__":
                package_dirs.append((p, e))
                modules.add(e)
                paths.setdefault(e, set()).add(e)
                for f in module_files(p, set()):
                    rel = os.path.relpath(f, p)
                    g = vendored_group(e, rel)
                    if g:
                        vendored.setdefault(e, set()).add(g)
                    group = g or e
                    mp = module_path(os.path.join(e, rel))
                    if mp:
                        paths.setdefault(group, set()).add(mp)
                    if f.endswith(ext):
                        if mp:
                            cmods.append((group, mp, f))
                    else:
                        jobs.append((group, f, mp))
    eps = entry_points(site)
    ep_groups = frozenset(eps)
    jobs.sort()
    chunks = [(jobs[i::4], ep_groups) for i in range(4)]
    groups = {"": base}
    pool = None
    try:
        import multiprocessing
        # Fork: the jobs run `collect` of this very script, which a fresh interpreter started
        # with `-c` could not import.
        pool = multiprocessing.get_context("fork").Pool(min(4, os.cpu_count() or 1))
        pending = pool.map_async(collect, chunks)
    except (ImportError, OSError, ValueError):
        pending = None
    # The extension modules are listed while the sources are parsed.
    cnames = c_scan(cmods, site)
    if pending is not None:
        parts = pending.get()
        pool.close()
        pool.join()
    else:
        parts = [collect(c) for c in chunks]
    group_imports = {}
    group_loads = {}
    group_uses = {}
    module_parts = {}
    module_words = {}
    module_edges = {}
    setters = {}
    group_calls = []
    for part, imps, lds, uses, found, edges, sets, calls in parts:
        for fn, keys in sets.items():
            setters.setdefault(fn, set()).update(keys)
        group_calls.append(calls)
        module_edges.update(edges)
        for m, (ps, ws) in found.items():
            module_parts.setdefault(m, set()).update(ps)
            module_words.setdefault(m, set()).update(ws)
        for g, names in part.items():
            groups.setdefault(g, set()).update(names)
        for g, i in imps.items():
            group_imports.setdefault(g, set()).update(i)
        for g, i in lds.items():
            if i:
                group_loads.setdefault(g, set()).update(i)
        for g, per in uses.items():
            for m, names in per.items():
                group_uses.setdefault(g, {}).setdefault(m, set()).update(names)
    # The attribute a call to a setter names (`defproperty(Text, "wholeText", ...)`) is set
    # by outside code, on objects the repository is handed.
    for calls in group_calls:
        for g, per in calls.items():
            for fn, passed in per.items():
                keys = setters.get(fn)
                if keys:
                    groups.setdefault(g, set()).update(v for k, v in passed if k in keys)
    for g, names in cnames.items():
        groups.setdefault(g, set()).update(names)
    for p, e in package_dirs:
        for g, keys in json_data_keys(p, e).items():
            groups.setdefault(g, set()).update(keys)
    groups.setdefault("", set()).update(sqlite_words())
    groups.setdefault("", set()).update(zone_words())
    groups.setdefault("", set()).update(c_api_words())
    # A vendored copy is its own group, reached through the package that carries it; so a
    # repository's own code vendored elsewhere (setuptools/_vendor/more_itertools) is dropped
    # with the repository's other copies instead of freezing every name it defines.
    for host, gs in vendored.items():
        group_imports.setdefault(host, set()).update(gs)
    out = {}
    for g, names in groups.items():
        out[g] = sorted(n for n in names if isinstance(n, str) and n.isidentifier())
    imports_out = {g: sorted(i) for g, i in group_imports.items() if g}
    plugins = {}
    for ep, mods in eps.items():
        gs = {group_of(m, groups) for m in mods} - {None, ""}
        if gs:
            plugins[ep] = sorted(gs)
    # Apart from the rest: a name a function reads without defining it may be one of these.
    builtin_names = sorted(n for n in dir(builtins) if n.isidentifier())
    return {"groups": out, "imports": imports_out, "modules": sorted(modules), "files": len(jobs),
            "builtins": builtin_names,
            "module_paths": {g: sorted(p) for g, p in paths.items() if p},
            "entry_points": plugins,
            "loads": {g: sorted(e) for g, e in group_loads.items()},
            "uses": {g: {m: sorted(n for n in names if n and n.isidentifier())
                         for m, names in per.items()}
                     for g, per in group_uses.items()},
            "compared_parts": {m: sorted(ps) for m, ps in module_parts.items()},
            "compared_words": {m: sorted(ws) for m, ws in module_words.items()},
            "compared_reach": {m: sorted(ps)
                               for m, ps in reaching(module_parts, module_edges).items()},
            "unicode_words": unicode_words() + codec_names()}


def sqlite_words():
    """SQLite's own names, which code writes in SQL strings (`PRAGMA foreign_keys`): its
    pragmas and SQL functions, asked of the linked library."""
    try:
        import sqlite3
        con = sqlite3.connect(":memory:")
        words = {r[0] for r in con.execute("PRAGMA pragma_list")}
        words |= {r[0] for r in con.execute("SELECT name FROM pragma_function_list")}
        con.close()
    except Exception:
        return set()
    return {w for w in words if isinstance(w, str) and w.isidentifier()}


C_API_NAME = re.compile(rb"(?<![A-Za-z0-9_])_?Py[A-Z][A-Za-z0-9_]*")


def c_api_words():
    """The interpreter's C API names (`PyCell_Set`), read from the executable and the
    libpython it has mapped. Code reaches them by name through `ctypes.pythonapi`, an object
    whose attributes are the symbols the interpreter exports; every exported name starts
    with `Py` or `_Py`, so those runs of the binaries are the candidates (a few more than the
    symbol table, from messages, which only keeps a few more words)."""
    paths = {os.path.realpath(sys.executable)}
    try:
        with open("/proc/self/maps") as maps:
            for line in maps:
                parts = line.split()
                if len(parts) >= 6 and parts[-1].startswith("/") and \
                        "python" in os.path.basename(parts[-1]).lower():
                    paths.add(parts[-1])
    except OSError:
        pass
    words = set()
    for p in sorted(paths):
        try:
            with open(p, "rb") as fh:
                data = fh.read()
        except OSError:
            continue
        words.update(m.group().decode("ascii") for m in C_API_NAME.finditer(data))
    return words


ZONE_DIRS = ["/usr/share/zoneinfo", "/usr/lib/zoneinfo", "/usr/share/lib/zoneinfo",
             "/etc/zoneinfo"]


def zone_words():
    """The time zone database's names: the pieces of zone keys (`New_York` of
    `America/New_York`, `EST5EDT`) and the abbreviations the zone files hold (`EST`, `CEST`).
    Code passes them to the system's zone lookup and compares them with what it returns."""
    dirs = list(ZONE_DIRS)
    try:
        import zoneinfo
        dirs = list(zoneinfo.TZPATH) + dirs
    except Exception:
        pass
    try:
        import tzdata
        dirs.append(os.path.join(os.path.dirname(tzdata.__file__), "zoneinfo"))
    except Exception:
        pass
    words = set()
    seen = set()
    for top in dirs:
        top = os.path.realpath(top)
        if top in seen or not os.path.isdir(top):
            continue
        seen.add(top)
        for d, subdirs, files in os.walk(top):
            for name in files + subdirs:
                words.update(p for p in re.split(r"[^A-Za-z0-9_]+", name) if p)
            for name in files:
                words.update(tzif_abbreviations(os.path.join(d, name)))
    return {w for w in words if w.isidentifier() and not w.isdigit()}


def tzif_abbreviations(path):
    """The abbreviations of a TZif file (RFC 8536: the v1 header's counts locate them)."""
    try:
        with open(path, "rb") as f:
            head = f.read(44)
            if len(head) < 44 or head[:4] != b"TZif":
                return set()
            isut, isstd, leap, times, types, chars = struct.unpack(">6l", head[20:44])
            if min(times, types, chars) < 0 or chars > 4096:
                return set()
            f.seek(44 + times * 5 + types * 6)
            data = f.read(chars)
    except (OSError, struct.error):
        return set()
    return {a.decode("ascii", "replace") for a in data.split(b"\0") if a.isalpha()}


def codec_names():
    """The names and aliases of the interpreter's text codecs, normalized as codec lookup
    normalizes them (`iso-8859-1` is `iso_8859_1`): code hands them to `str.encode`,
    `bytes.decode` and `open(encoding=...)`, which look the codec up by them."""
    import encodings
    from encodings.aliases import aliases
    names = {encodings.normalize_encoding(n).lower() for n in set(aliases) | set(aliases.values())}
    # One plain word (`ascii`, `latin`) is a word like any other; the policy looks only for
    # the names with a separator or a digit (`codec_literal`).
    return sorted(n for n in names if n and ("_" in n or any(c.isdigit() for c in n)))


def unicode_words():
    """Words of Unicode character names (`lamda` of GREEK SMALL LETTER LAMDA), lower case:
    code looks characters up by them (`unicodedata.lookup("GREEK SMALL LETTER " + name)`)."""
    import unicodedata
    words = set()
    for i in range(0x110000):
        n = unicodedata.name(chr(i), None)
        if n:
            words.update(w for w in n.lower().replace("-", " ").split()
                         if w.isalpha() and w.isascii() and len(w) >= 3)
    return sorted(words)


def dynload_modules(ext):
    """Extension modules of the stdlib found on the path when the stdlib folder has no
    lib-dynload (some distributions keep it elsewhere)."""
    out = set()
    for p in sys.path:
        if os.path.basename(p) == "lib-dynload" and os.path.isdir(p):
            for e in os.listdir(p):
                if e.endswith(ext):
                    out.add(e.split(".")[0])
    return sorted(out)


# CPython's own test modules define helpers that no program calls; `__main__` is the scanner.
def c_module_wanted(name):
    last = name.rsplit(".", 1)[-1]
    return not (last.startswith(("_test", "xx", "_xx")) or last.endswith("_test")
                or last == "__main__")


def own_source():
    """The text of this script, to start the child with (it runs as `-c` or from a file)."""
    f = globals().get("__file__")
    if f and os.path.isfile(f):
        with open(f, encoding="utf-8") as fh:
            return fh.read()
    argv = getattr(sys, "orig_argv", [])
    if "-c" in argv and argv.index("-c") + 1 < len(argv):
        return argv[argv.index("-c") + 1]
    return None


def c_scan(cmods, site):
    """Names of builtin and extension modules per group, listed by child processes (see the
    note at the top): a module that fails, hangs past C_MODULE_TIMEOUT or kills its child is
    skipped, and a new child goes on with the next one, until C_SCAN_BUDGET runs out."""
    specs = [s for s in cmods if c_module_wanted(s[1])]
    source = own_source()
    out = {}
    if source is None:
        return out
    deadline = time.monotonic() + C_SCAN_BUDGET
    i = 0
    while i < len(specs) and time.monotonic() < deadline:
        nxt = c_child_run(specs, i, site, source, deadline, out)
        if nxt is None:
            break
        i = max(nxt, i + 1)
    return out


def c_child_run(specs, start, site, source, deadline, out):
    """Run one child on specs[start:]; the index to go on from, or None when the child
    never answered (it cannot run at all)."""
    try:
        child = subprocess.Popen(
            [sys.executable, "-I", "-S", "-c", source, "cmodules"],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    except OSError:
        return None
    messages = queue.Queue()
    threading.Thread(target=read_messages, args=(child.stdout, messages), daemon=True).start()
    try:
        child.stdin.write(json.dumps({"specs": specs, "start": start, "site": site}).encode())
        child.stdin.close()
    except OSError:
        pass
    nxt = None
    while True:
        try:
            msg = messages.get(timeout=max(0.0, min(C_MODULE_TIMEOUT,
                                                    deadline - time.monotonic())))
        except queue.Empty:
            break
        if msg is None:
            break
        # A module begun and never done is skipped: the next child starts after it.
        nxt = msg[1] + 1
        if msg[0] == "done":
            out.setdefault(specs[msg[1]][0], set()).update(msg[2])
    child.kill()
    child.wait()
    return nxt


def read_messages(stream, messages):
    for raw in stream:
        try:
            messages.put(json.loads(raw))
        except ValueError:
            break
    messages.put(None)


def c_child():
    """`cmodules`: list the names of the modules named on standard input (JSON), one result
    line per module on the original standard output, which is kept aside from what modules
    may print."""
    req = json.loads(sys.stdin.read())
    report = os.fdopen(os.dup(1), "w")
    null = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(null, fd)
    import warnings
    warnings.simplefilter("ignore")
    site = {os.path.realpath(p) for p in req["site"]}
    sys.path[:] = [p for p in sys.path if os.path.realpath(p or ".") not in site]
    isolated = list(sys.path)
    specs = req["specs"]
    # Classes a module makes but binds to no name of its own (`re.Pattern`, made by `_sre`,
    # whose `search(..., endpos=...)` code calls by keyword) are found as the classes that
    # exist after it loads and did not before. Those of the interpreter's start count for
    # the stdlib.
    seen = set()
    for k in range(req["start"], len(specs)):
        group, name, path = specs[k]
        report.write(json.dumps(["begin", k]) + "\n")
        report.flush()
        try:
            names = sorted(n for n in c_names(load_module(name, path)) if isinstance(n, str))
        except BaseException:
            names = []
        # An extension module that imports its own package's Python code when it starts
        # (`lxml.etree` reads `lxml._elementpath`) cannot load in isolation; its names are
        # outside names all the same, so it is imported once more as its package's module,
        # with site-packages on the path.
        if not names and path is not None:
            try:
                sys.path[:] = isolated + req["site"]
                # A failed start may have left the module half made in `sys.modules`.
                sys.modules.pop(name, None)
                names = sorted(n for n in c_names(importlib.import_module(name))
                               if isinstance(n, str))
            except BaseException:
                names = []
            finally:
                sys.path[:] = isolated
        try:
            made = all_classes() - seen
            seen |= made
            if names or group == "":
                names = sorted(set(names) | {n for c in made for n in class_names(c)})
        except BaseException:
            pass
        report.write(json.dumps(["done", k, names]) + "\n")
        report.flush()
    report.close()


def load_module(name, path):
    if path is None:
        return __import__(name)
    import importlib.util
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise ImportError(name)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def all_classes():
    """Every class of the process: the subclasses of `object`, transitively."""
    out = set()
    todo = [object]
    while todo:
        c = todo.pop()
        try:
            subs = type.__subclasses__(c)
        except Exception:
            continue
        for sc in subs:
            if sc not in out:
                out.add(sc)
                todo.append(sc)
    return out


def class_names(cls):
    """A class's name, its members' names and its methods' parameters."""
    names = set()
    try:
        names.add(cls.__name__)
        members = dir(cls)
    except Exception:
        return names
    for m in members:
        names.add(m)
        try:
            names.update(params(getattr(cls, m)))
        except Exception:
            continue
    return {n for n in names if isinstance(n, str)}


def c_names(mod):
    """Every name a module defines, the names of its classes' members, and the parameters of
    its functions and of its classes' methods: code calls them with keyword arguments
    (`create_function(..., deterministic=True)`) as it calls Python functions."""
    names = set()
    for n in dir(mod):
        names.add(n)
        try:
            v = getattr(mod, n)
        except Exception:
            continue
        names.update(params(v))
        if isinstance(v, type):
            names |= class_names(v)
    return names


def params(obj):
    """The parameter names of a callable: from `__text_signature__`, the code object of a
    Python function, or the first line of the docstring where it is a signature
    (`print(value, ..., sep=' ', end='\\n', file=sys.stdout, flush=False)`)."""
    if not callable(obj):
        return []
    try:
        text = getattr(obj, "__text_signature__", None)
    except Exception:
        text = None
    if isinstance(text, str):
        return signature_names(text)
    code = getattr(obj, "__code__", None)
    if code is not None and hasattr(code, "co_varnames"):
        n = code.co_argcount + code.co_kwonlyargcount + bool(code.co_flags & 4) + bool(
            code.co_flags & 8)
        return list(code.co_varnames[:n])
    try:
        doc = obj.__doc__
        name = obj.__name__
    except Exception:
        return []
    if isinstance(doc, str) and isinstance(name, str):
        return doc_signature(doc, name)
    return []


def signature_names(text):
    """Parameter names in a signature text: `($self, /, name, narg, func, *,
    deterministic=False)`, `(x, y[, z])`, `(value, ..., sep=' ')`."""
    start = text.find("(")
    if start < 0:
        return []
    out = []
    depth = 0
    quote = None
    piece = []
    for c in text[start + 1:]:
        if quote:
            if c == quote:
                quote = None
            continue
        # Square brackets mark optional parameters in docstrings (`day[, hour]`), so they
        # do not nest: a comma inside them still separates parameters.
        if c in "'\"":
            quote = c
        elif c in "({":
            depth += 1
        elif c in ")}":
            if depth == 0:
                out.append("".join(piece))
                break
            depth -= 1
        elif c == "," and depth == 0:
            out.append("".join(piece))
            piece = []
            continue
        if depth == 0:
            piece.append(c)
    names = []
    for p in out:
        m = re.match(r"[\s\[\]*]*([A-Za-z_]\w*)", p.replace("[", " "))
        if m and not p.strip().startswith("$"):
            names.append(m.group(1))
    return names


def doc_signature(doc, name):
    """Parameter names from a docstring whose first line is a signature of `name`
    (`connect(database, timeout=5.0, ...)`, `S.split(sep=None, maxsplit=-1) -> list`)."""
    head = doc.lstrip().split("\n\n", 1)[0]
    m = re.match(r"([A-Za-z_][\w.]*)\s*\(", head)
    if not m or m.group(1).rsplit(".", 1)[-1] != name:
        return []
    return signature_names(head[m.end() - 1:])


def main():
    if len(sys.argv) >= 2 and sys.argv[1] == "fingerprint":
        out = fingerprint()
    elif len(sys.argv) == 2 and sys.argv[1] == "scan":
        out = scan()
    elif len(sys.argv) == 2 and sys.argv[1] == "cmodules":
        c_child()
        return
    else:
        sys.stderr.write("usage: envscan.py fingerprint | scan\n")
        sys.exit(2)
    json.dump(out, sys.stdout)


if __name__ == "__main__":
    main()
