//! The environment scan script (`src/envscan.py`) run for real with the machine's `python3`,
//! over made-up stdlib and site-packages folders: what it reports for builtin and extension
//! modules, entry points, reverse dependencies and module paths.

use std::path::Path;
use std::process::Command;

use schrodinger::bundle::{build_with_env, BuildOptions, EnvScan, Progress, Tree, TreeFile};

const ENVSCAN: &str = include_str!("../src/envscan.py");

/// Run Python `code` with the scan script importable as `envscan` (from `dir`); its output.
fn python(dir: &Path, code: &str) -> Vec<u8> {
    std::fs::write(dir.join("envscan.py"), ENVSCAN).unwrap();
    let script = format!(
        "import json, sys; sys.path.insert(0, {dir:?}); import envscan\n{code}",
        dir = dir.to_str().unwrap()
    );
    let out = Command::new("python3")
        .args(["-I", "-c", &script])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    out.stdout
}

/// The scan of a made-up environment (`stdlib` and `site` under `dir`), after `setup`.
fn scan(dir: &Path, setup: &str) -> EnvScan {
    let code = format!(
        "envscan.roots = lambda: ({stdlib:?}, [{site:?}])\n{setup}\nprint(json.dumps(envscan.scan()))",
        stdlib = dir.join("stdlib").to_str().unwrap(),
        site = dir.join("site").to_str().unwrap(),
    );
    serde_json::from_slice(&python(dir, &code)).unwrap()
}

fn write(root: &Path, rel: &str, text: &str) {
    let p = root.join(rel);
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    std::fs::write(p, text).unwrap();
}

fn has(list: Option<&Vec<String>>, name: &str) -> bool {
    list.is_some_and(|l| l.iter().any(|n| n == name))
}

/// Parameters of functions implemented in C are outside names: `sqlite3`'s
/// `Connection.create_function(..., deterministic=True)` (a method of an extension module's
/// class), `connect(check_same_thread=...)` and `re.Pattern.search(..., endpos=...)`, which
/// have no Python source.
#[test]
fn c_function_parameters_are_outside_names() {
    let d = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(d.path().join("site")).unwrap();
    // The stdlib's extension modules are found in its lib-dynload folder and imported by
    // name, so an empty file stands for the interpreter's own `_sqlite3`.
    let suffix = String::from_utf8(python(
        d.path(),
        "import importlib.machinery as m; print(m.EXTENSION_SUFFIXES[0], end='')",
    ))
    .unwrap();
    write(
        d.path(),
        &format!("stdlib/lib-dynload/_sqlite3{suffix}"),
        "",
    );
    let s = scan(d.path(), "");
    let stdlib = s.groups.get("");
    for name in ["deterministic", "check_same_thread", "create_function"] {
        assert!(has(stdlib, name), "{name} missing");
    }
    // A class a C module makes but binds to no name: `_sre`'s `Pattern`, whose
    // `search(string, pos, endpos)` beautifulsoup4 calls with `endpos=`.
    assert!(has(stdlib, "endpos"), "endpos missing");
}

/// The interpreter's own types are known by `__name__`s no module binds (`types.CellType` is
/// `cell`): code compares `type(x).__name__` with them, so they are outside names.
#[test]
fn interpreter_type_names_are_outside_names() {
    let d = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(d.path().join("stdlib")).unwrap();
    std::fs::create_dir_all(d.path().join("site")).unwrap();
    let s = scan(d.path(), "");
    let stdlib = s.groups.get("");
    for name in ["cell", "builtin_function_or_method", "mappingproxy"] {
        assert!(has(stdlib, name), "{name} missing");
    }
}

/// Names outside code holds as data: a hyphenated name (pytest registers its logging plugin as
/// `"logging-plugin"`) is an outside name in its underscore spelling: the view swaps such a
/// string like that identifier, so a test's `logging_plugin` must not change either.
#[test]
fn hyphenated_strings_of_outside_code_are_outside_names() {
    let d = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(d.path().join("site")).unwrap();
    write(
        d.path(),
        "stdlib/plugins.py",
        "def setup(pm):\n    pm.register(object(), name=\"logging-plugin\")\n    return '--no-header', normalize('NFKC', 'x'), 'Mixed'\n",
    );
    let s = scan(d.path(), "");
    let stdlib = s.groups.get("");
    assert!(has(stdlib, "logging_plugin"));
    assert!(has(stdlib, "no_header"));
    // Upper-case words held as data are outside names too; other words are not.
    assert!(has(stdlib, "NFKC"));
    assert!(!has(stdlib, "Mixed"));
}

/// Outside code reads data by string keys and named-tuple fields: `locale` looks its
/// `localeconv()` mapping up by `"thousands_sep"`, `inspect.getfullargspec` returns a named
/// tuple whose fields are spelled in one string. Other strings of outside code stay free.
#[test]
fn keys_and_named_tuple_fields_of_outside_code_are_outside_names() {
    let d = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(d.path().join("site")).unwrap();
    write(
        d.path(),
        "stdlib/numfmt.py",
        "import collections\n\
         from typing import NamedTuple\n\
         Spec = collections.namedtuple('Spec', 'spec_args, spec_varkw kwonly_defaults')\n\
         Row = NamedTuple('Row', [('row_key', str), ('row_width', int)])\n\
         Cell = namedtuple('Cell', field_names=['cell_span'])\n\
         def grouping(conv, options):\n    \
         sep = conv['thousands_sep']\n    \
         return sep, options.get('digit_group'), print('plain_words here')\n",
    );
    let s = scan(d.path(), "");
    let stdlib = s.groups.get("");
    for name in [
        "thousands_sep",
        "digit_group",
        "spec_args",
        "spec_varkw",
        "kwonly_defaults",
        "row_key",
        "row_width",
        "cell_span",
    ] {
        assert!(has(stdlib, name), "{name} missing");
    }
    assert!(!has(stdlib, "plain_words"));
    assert!(!has(stdlib, "here"));
}

/// Attributes outside code sets by name are outside names: a literal given to `setattr` and
/// its kin, and a string given to a function of another module that passes its parameter to
/// `setattr` (minidom's `defproperty(Text, "wholeText", doc=...)`, defined in minicompat).
/// A string given to a function that does not set attributes stays a plain string.
#[test]
fn attributes_set_by_name_are_outside_names() {
    let d = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(d.path().join("site")).unwrap();
    write(
        d.path(),
        "stdlib/domcompat.py",
        "def defprop(klass, prop_name, doc):\n    \
         get = getattr(klass, '_get_' + prop_name)\n    \
         setattr(klass, prop_name, property(get, doc=doc))\n\n\
         def describe(klass, label):\n    \
         return klass, label\n",
    );
    write(
        d.path(),
        "stdlib/dom.py",
        "from domcompat import *\n\
         class Text:\n    \
         def _get_wholeText(self):\n        return ''\n\
         defprop(Text, 'wholeText', doc='whole_story')\n\
         defprop(klass=Text, prop_name='keywordText', doc='')\n\
         describe(Text, 'describedText')\n\
         setattr(Text, 'setText', 1)\n\
         hasattr(Text, 'askedText')\n",
    );
    let s = scan(d.path(), "");
    let stdlib = s.groups.get("");
    for name in ["wholeText", "keywordText", "setText", "askedText"] {
        assert!(has(stdlib, name), "{name} missing");
    }
    assert!(!has(stdlib, "describedText"));
    assert!(!has(stdlib, "whole_story"));
}

/// Where `inspect.signature` gives up, the parameters are read from `__text_signature__` or
/// from a signature on the first line of the docstring.
#[test]
fn signatures_are_read_from_texts_and_docstrings() {
    let d = tempfile::tempdir().unwrap();
    let out = python(
        d.path(),
        r#"print(json.dumps([
    envscan.signature_names("($self, /, name, narg, func, *, deterministic=False)"),
    envscan.signature_names("($module, /, x, y=(1, 2), *args, key='a,b', **kw)"),
    envscan.doc_signature("datetime(year, month, day[, hour[, minute]])\n\nA date.", "datetime"),
    envscan.doc_signature("print(value, ..., sep=' ', end='\\n', file=sys.stdout)", "print"),
    envscan.doc_signature("S.split(sep=None, maxsplit=-1) -> list of strings", "split"),
    envscan.doc_signature("Return the thing(s) asked for.", "thing"),
]))"#,
    );
    let got: Vec<Vec<String>> = serde_json::from_slice(&out).unwrap();
    let want: Vec<Vec<&str>> = vec![
        vec!["name", "narg", "func", "deterministic"],
        vec!["x", "y", "args", "key", "kw"],
        vec!["year", "month", "day", "hour", "minute"],
        vec!["value", "sep", "end", "file"],
        vec!["sep", "maxsplit"],
        vec![],
    ];
    assert_eq!(got, want);
}

/// Importing modules without source is safe: one that prints, hangs, raises or kills the
/// interpreter is skipped, the others are listed, and the report stays valid JSON.
#[test]
fn a_bad_module_never_fails_the_scan() {
    let d = tempfile::tempdir().unwrap();
    let m = d.path().join("mods");
    write(
        &m,
        "loud.py",
        "print('noise'); import os; os.write(1, b'raw')\nloud_name = 1\n",
    );
    write(&m, "hangs.py", "while True:\n    pass\n");
    write(&m, "dies.py", "import os\nos._exit(3)\n");
    write(&m, "raises.py", "raise RuntimeError('no')\n");
    write(&m, "last.py", "def last_function(last_param):\n    pass\n");
    let spec = |g: &str, n: &str| format!("({g:?}, {n:?}, {:?})", m.join(format!("{n}.py")));
    let code = format!(
        "envscan.C_MODULE_TIMEOUT = 5.0\n\
         r = envscan.c_scan([{}, {}, {}, {}, {}], [])\n\
         print(json.dumps({{g: sorted(v) for g, v in r.items()}}))",
        spec("a", "loud"),
        spec("b", "hangs"),
        spec("c", "dies"),
        spec("d", "raises"),
        spec("e", "last"),
    );
    // The timeout also covers the child interpreter's start before the first module: at
    // 1 s, a loaded machine (load 10 on 2 cores) cut `loud` off. The hanging module is cut
    // off all the same (it is absent below), so no wall-clock bound is asserted.
    let out = python(d.path(), &code);
    let got: std::collections::BTreeMap<String, Vec<String>> =
        serde_json::from_slice(&out).unwrap();
    assert!(has(got.get("a"), "loud_name"), "{got:?}");
    assert!(has(got.get("e"), "last_function") && has(got.get("e"), "last_param"));
    assert!(!got.contains_key("b") && !got.contains_key("c"), "{got:?}");
}

/// An extension module that imports its own package's Python code when it starts (`lxml.etree`
/// reads `lxml._elementpath`) cannot load with site-packages off the path; it is imported
/// again as its package's module, so its names (`LXML_VERSION`) are outside names. A `.py`
/// file stands for the extension (`c_scan` loads either from its file).
#[test]
fn an_extension_module_that_needs_its_package_is_listed() {
    let d = tempfile::tempdir().unwrap();
    let site = d.path().join("site");
    write(&site, "fastpkg/__init__.py", "");
    write(&site, "fastpkg/_helper.py", "HELPER = 1\n");
    write(
        &site,
        "fastpkg/fast.py",
        "from fastpkg import _helper\nFAST_VERSION = _helper.HELPER\n",
    );
    let code = format!(
        "r = envscan.c_scan([(\"fastpkg\", \"fastpkg.fast\", {fast:?})], [{site:?}])\n\
         print(json.dumps({{g: sorted(v) for g, v in r.items()}}))",
        fast = site.join("fastpkg/fast.py"),
        site = site,
    );
    let got: std::collections::BTreeMap<String, Vec<String>> =
        serde_json::from_slice(&python(d.path(), &code)).unwrap();
    assert!(has(got.get("fastpkg"), "FAST_VERSION"), "{got:?}");
}

/// A site-packages where `host` loads the `host_plugins` entry points (`plug`), and `user`
/// imports a repository `mine` and uses its API.
fn made_up_site(dir: &Path) {
    let site = dir.join("site");
    std::fs::create_dir_all(dir.join("stdlib")).unwrap();
    write(
        &site,
        "host/__init__.py",
        "from importlib.metadata import entry_points\n\
         def load():\n    return entry_points(group=\"host_plugins\")\n",
    );
    write(
        &site,
        "plug/__init__.py",
        "def plug_api(plug_param=1):\n    pass\n",
    );
    write(
        &site,
        "plug-1.0.dist-info/entry_points.txt",
        "[host_plugins]\nmain = plug:plug_api\n\n[docs_only]\nx = plug\n",
    );
    write(
        &site,
        "user/__init__.py",
        r#"import mine
from mine.sub import Base

def run(obj, path):
    r = mine.open_thing(path, keep_open=True)
    r.flush_all()
    obj.unrelated_call(other_flag=True)
    return getattr(mine, "lazy_attr")

class Sub(Base):
    level = 3
    def on_event(self, x):
        return self.event_state

@mine.hookimpl(tryfirst=True)
def mine_startup(session_arg):
    pass

def typed(thing: mine.Thing):
    return thing.thing_attr
"#,
    );
}

/// Entry points and reverse dependencies: the scan reports which groups hold the plugins of
/// each entry point group, which groups name (and so load) an entry point group, and the
/// names a group's code uses on each module it imports from outside itself.
#[test]
fn scan_reports_plugins_loaders_and_uses() {
    let d = tempfile::tempdir().unwrap();
    made_up_site(d.path());
    let s = scan(d.path(), "");
    assert_eq!(
        s.entry_points.get("host_plugins"),
        Some(&vec!["plug".into()])
    );
    assert_eq!(s.loads.get("host"), Some(&vec!["host_plugins".to_string()]));
    let uses = s.uses.get("user").and_then(|u| u.get("mine"));
    for name in [
        "sub",
        "Base",
        "open_thing",
        "keep_open",
        "flush_all",
        "lazy_attr",
        "level",
        "on_event",
        "event_state",
        "hookimpl",
        "tryfirst",
        "mine_startup",
        "session_arg",
        "Thing",
        "thing_attr",
    ] {
        assert!(has(uses, name), "{name} missing from {uses:?}");
    }
    for name in ["unrelated_call", "other_flag", "run"] {
        assert!(!has(uses, name), "{name} is not used on mine: {uses:?}");
    }
}

/// Every module path of the environment is reported, submodules too.
#[test]
fn scan_reports_module_paths() {
    let d = tempfile::tempdir().unwrap();
    write(d.path(), "stdlib/urllib/__init__.py", "");
    write(
        d.path(),
        "stdlib/urllib/robotparser.py",
        "class RobotFileParser: pass\n",
    );
    write(d.path(), "site/host/deep/inner.py", "x = 1\n");
    let s = scan(d.path(), "");
    assert!(has(s.module_paths.get(""), "urllib.robotparser"), "{s:?}");
    assert!(has(s.module_paths.get("host"), "host.deep.inner"));
}

/// The stdlib's `test.support` is a library other suites import (zipp's tests take
/// `temp_dir` and `FakePath` from `test.support.os_helper` through `try_import('os_helper')`):
/// its module paths and names are outside names. The rest of the stdlib's `test`, CPython's
/// own suite, and test folders elsewhere stay unscanned.
#[test]
fn the_stdlibs_test_support_is_scanned_and_its_suite_is_not() {
    let d = tempfile::tempdir().unwrap();
    write(d.path(), "stdlib/test/__init__.py", "");
    write(
        d.path(),
        "stdlib/test/support/__init__.py",
        "def captured_stdout(): pass\n",
    );
    write(
        d.path(),
        "stdlib/test/support/os_helper.py",
        "class FakePath: pass\ndef temp_dir(path=None): pass\n",
    );
    write(
        d.path(),
        "stdlib/test/test_grammar.py",
        "def grammar_probe_one(): pass\n",
    );
    write(
        d.path(),
        "stdlib/test/data/helper.py",
        "def data_probe_two(): pass\n",
    );
    write(
        d.path(),
        "stdlib/email/tests/t.py",
        "def email_probe_three(): pass\n",
    );
    write(
        d.path(),
        "site/pkg/test/support/x.py",
        "def site_probe_four(): pass\n",
    );
    let s = scan(d.path(), "");
    let stdlib = s.groups.get("");
    assert!(
        has(s.module_paths.get(""), "test.support.os_helper"),
        "{s:?}"
    );
    for name in ["FakePath", "temp_dir", "captured_stdout"] {
        assert!(has(stdlib, name), "{name} missing");
    }
    let all: Vec<&String> = s.groups.values().flatten().collect();
    for name in [
        "grammar_probe_one",
        "data_probe_two",
        "email_probe_three",
        "site_probe_four",
    ] {
        assert!(!all.iter().any(|n| *n == name), "{name} scanned");
    }
}

/// The view of a made-up repository under a scanned environment: each file's view.
fn view(files: &[(&str, &str)], env: &EnvScan) -> Vec<String> {
    let tree = Tree {
        files: files
            .iter()
            .map(|(p, c)| TreeFile {
                rel: p.into(),
                content: c.as_bytes().to_vec(),
            })
            .collect(),
        dirs: vec![],
        generated: vec![],
    };
    let opts = BuildOptions {
        seed: 11,
        levels: vec![2],
        python: "python3".into(),
        freeze: vec![],
        cache_dir: None,
        rename_pure_locals: false,
        rewrite: Default::default(),
    };
    let r = build_with_env(&tree, env, &opts, &Progress::hidden())
        .renamer()
        .unwrap();
    files
        .iter()
        .map(|(p, c)| {
            String::from_utf8(r.swap_content(p.as_bytes(), c.as_bytes()).into_owned()).unwrap()
        })
        .collect()
}

/// Rule 1 end to end: a repository passing `deterministic=` to sqlite's C method keeps it,
/// though it also has a local of that name.
#[test]
fn a_repository_keeps_keyword_arguments_of_c_functions() {
    let d = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(d.path().join("site")).unwrap();
    let suffix = String::from_utf8(python(
        d.path(),
        "import importlib.machinery as m; print(m.EXTENSION_SUFFIXES[0], end='')",
    ))
    .unwrap();
    write(
        d.path(),
        &format!("stdlib/lib-dynload/_sqlite3{suffix}"),
        "",
    );
    let env = scan(d.path(), "");
    let src = "import functools\n\n\
               def open_ledger(conn, deterministic):\n    \
               create = functools.partial(conn.create_function, deterministic=True)\n    \
               return create, deterministic\n";
    let v = &view(&[("db/backend.py", src)], &env)[0];
    assert!(v.contains(".create_function, deterministic=True)"), "{v}");
    assert!(
        !v.contains("open_ledger"),
        "the test needs a renamed name: {v}"
    );
}

/// The interpreter's C API names are outside names (`src/envscan.py`, `c_api_words`): dill
/// reaches `ctypes.pythonapi.PyCell_Set`, a symbol of libpython, by attribute; renamed, its
/// package failed to import in the view. The repository's own compound of the same shape is
/// still renamed.
#[test]
fn a_repository_keeps_the_interpreters_c_api_names() {
    let d = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(d.path().join("stdlib")).unwrap();
    std::fs::create_dir_all(d.path().join("site")).unwrap();
    let env = scan(d.path(), "");
    assert!(has(env.groups.get(""), "PyCell_Set"), "PyCell_Set missing");
    let src = "import ctypes\n\n\
               PyCell_Set = ctypes.pythonapi.PyCell_Set\n\n\
               def ledger_cell_set(cell, value):\n    \
               return PyCell_Set(cell, value)\n";
    let v = &view(&[("vault/cells.py", src)], &env)[0];
    assert!(v.contains("ctypes.pythonapi.PyCell_Set"), "{v}");
    assert!(
        !v.contains("ledger_cell_set"),
        "the test needs a renamed name: {v}"
    );
}

/// Rule 2 end to end: the API `user` (installed outside code) calls on the repository keeps
/// its names, and so does what the plugins `host` loads define; the repository's other names
/// are renamed.
#[test]
fn a_repository_keeps_what_outside_code_calls_it_by() {
    let d = tempfile::tempdir().unwrap();
    made_up_site(d.path());
    let env = scan(d.path(), "");
    let api = "def open_thing(path, keep_open=False):\n    return path\n\n\
               def hookimpl(tryfirst=False):\n    return tryfirst\n\n\
               def shelf_helper(shelf_count, plug_param=None):\n    return shelf_count\n";
    let uses = "import host\n\nHOOKS = host.load()\n";
    let v = view(&[("mine/__init__.py", api), ("mine/uses.py", uses)], &env);
    for kept in [
        "def open_thing(path, keep_open=False)",
        "def hookimpl(tryfirst=False)",
        "plug_param=None",
    ] {
        assert!(v[0].contains(kept), "{kept}: {}", v[0]);
    }
    assert!(
        !v[0].contains("shelf_helper") && !v[0].contains("shelf_count"),
        "{}",
        v[0]
    );
}

/// The time zone database's names are outside names: the pieces of zone keys (`Olympus_Mons`
/// of `Mars/Olympus_Mons`) and the abbreviations a zone file holds (`XYZT`), read from the
/// TZif header's counts (RFC 8536); a file that is no TZif, or lies about its counts, gives
/// nothing and no error.
#[test]
fn time_zone_names_and_abbreviations_are_outside_names() {
    let d = tempfile::tempdir().unwrap();
    let zones = d.path().join("zones");
    std::fs::create_dir_all(zones.join("Mars")).unwrap();
    let code = format!(
        r#"import struct
zones = {zones:?}
head = b"TZif" + b"\0" * 16 + struct.pack(">6l", 0, 0, 0, 0, 1, 10)
open(zones + "/Mars/Olympus_Mons", "wb").write(head + b"\0" * 6 + b"XYZT\0QRST\0")
open(zones + "/Mars/Broken", "wb").write(b"TZif" + b"\0" * 16 + struct.pack(">6l", 0, 0, 0, -1, 1, 10))
open(zones + "/Mars/notes.txt", "wb").write(b"not a zone file")
envscan.ZONE_DIRS = [zones]
words = envscan.zone_words()
print(json.dumps(sorted(w for w in words if w in ("Mars", "Olympus_Mons", "XYZT", "QRST", "Broken", "notes", "txt"))))
"#,
        zones = zones.to_str().unwrap()
    );
    let got: Vec<String> = serde_json::from_slice(&python(d.path(), &code)).unwrap();
    assert_eq!(
        got,
        [
            "Broken",
            "Mars",
            "Olympus_Mons",
            "QRST",
            "XYZT",
            "notes",
            "txt"
        ],
        "zone key pieces (file names included) and the abbreviations of valid files"
    );
}

/// Module and class globals bound inside `try:`, `if`, `with` and `for` blocks are outside
/// names like those at the top (uuid.py sets `_UuidCreate` in a `try:`; freezegun reads
/// `uuid._UuidCreate`); a function's locals are not.
#[test]
fn globals_bound_inside_blocks_are_outside_names() {
    let d = tempfile::tempdir().unwrap();
    write(
        d.path(),
        "stdlib/guarded.py",
        "try:\n    import _absent\n    _make_node = _absent.make\nexcept ImportError:\n    _fallback_node = None\nelse:\n    _else_node = 1\nfinally:\n    _final_node = 2\nif True:\n    PLATFORM_FLAG = 1\nelse:\n    OTHER_FLAG = 2\nwith open(__file__) as opened_file:\n    _with_node = 3\nfor loop_item in ():\n    _loop_node = 4\nclass Holder:\n    if True:\n        inner_attr = 1\ndef helper():\n    if True:\n        local_only = 1\n",
    );
    std::fs::create_dir_all(d.path().join("site")).unwrap();
    let env = scan(d.path(), "");
    let stdlib = &env.groups[""];
    for n in [
        "_make_node",
        "_fallback_node",
        "_else_node",
        "_final_node",
        "PLATFORM_FLAG",
        "OTHER_FLAG",
        "opened_file",
        "_with_node",
        "loop_item",
        "_loop_node",
        "inner_attr",
    ] {
        assert!(stdlib.contains(&n.to_string()), "{n} missing");
    }
    assert!(!stdlib.contains(&"local_only".to_string()));
}

/// The name parts an installed module picks names by (a prefix compared by slice or
/// `startswith`, a suffix by `endswith`, on a name that a loop or comprehension enumerates),
/// with the identifiers its code spells as strings; bare words, parts of other shapes, and
/// tests on a parameter (of a function or a lambda), an attribute, a literal or the items of
/// a literal are not parts.
#[test]
fn name_parts_a_module_picks_names_by_are_found() {
    let d = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(d.path().join("stdlib")).unwrap();
    write(
        d.path(),
        "site/lexkit/lex.py",
        "def rules(ns):\n    names = [f for f in ns if f[:2] == 't_']\n    cmds = [n for n in ns if n.startswith(('do_', 'x'))]\n    ends = []\n    for n, _ in ns.items():\n        if n.endswith('_end'):\n            ends.append(n)\n    bare = [n for n in ns if n.startswith('test')]\n    return names, cmds, ends, bare, 'ignore', 'not a word'\n\ndef guess(name, p):\n    return name.startswith('is_') or p.kind.startswith('VAR_') or name[-5:] == '_size'\n\ndef others(ns):\n    ops = list(filter(lambda name: name.startswith('OP_'), ns))\n    for attr in 'lineno', 'end_lineno':\n        if attr.startswith('end_'):\n            ops.append(attr)\n    return ops\n",
    );
    write(d.path(), "site/plain.py", "x = 'y'.startswith('z_')\n");
    let env = scan(d.path(), "");
    let got: Vec<(&str, bool)> = env.compared_parts["lexkit.lex"]
        .iter()
        .map(|(p, b)| (p.as_str(), *b))
        .collect();
    assert_eq!(got, [("_end", false), ("do_", true), ("t_", true)]);
    assert!(!env.compared_parts.contains_key("plain"));
    let words = &env.compared_words["lexkit.lex"];
    assert!(words.contains(&"ignore".to_string()), "{words:?}");
    assert!(!words.iter().any(|w| w == "not a word"));
}

/// A module that picks names is reached from the modules of its package that import it when
/// they are imported, relative imports included; an import inside a function is not followed.
#[test]
fn modules_reach_the_pickers_they_import() {
    let d = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(d.path().join("stdlib")).unwrap();
    let picker = "def rules(ns):\n    return [f for f in ns if f[:2] == 't_']\n";
    write(d.path(), "site/lexkit/_impl/lex.py", picker);
    write(
        d.path(),
        "site/lexkit/_impl/__init__.py",
        "from .lex import rules\n",
    );
    write(
        d.path(),
        "site/lexkit/__init__.py",
        "from lexkit._impl import rules\n",
    );
    write(d.path(), "site/lexkit/unrelated.py", "X = 1\n");
    write(d.path(), "site/lazy/picky.py", picker);
    write(
        d.path(),
        "site/lazy/__init__.py",
        "def load():\n    from lazy import picky\n    return picky\n",
    );
    let env = scan(d.path(), "");
    let reach = |m: &str| env.compared_reach.get(m).cloned().unwrap_or_default();
    for m in ["lexkit", "lexkit._impl", "lexkit._impl.lex"] {
        assert_eq!(reach(m), ["lexkit._impl.lex".to_string()], "{m}");
    }
    assert!(reach("lexkit.unrelated").is_empty());
    assert_eq!(reach("lazy.picky"), ["lazy.picky".to_string()]);
    assert!(reach("lazy").is_empty());
}

/// `schrodinger scan-env` fills the cache a mount reads (at image build time), says when the
/// cache already holds the environment, and `--check` compares a fresh scan with the cached
/// one: equal for an unchanged environment, a failure when the cache holds something else.
#[test]
fn scan_env_fills_the_cache_and_checks_it() {
    let d = tempfile::tempdir().unwrap();
    let venv = d.path().join("venv");
    let made = Command::new("python3")
        .args(["-m", "venv", "--without-pip"])
        .arg(&venv)
        .status()
        .unwrap();
    assert!(made.success());
    let cache = d.path().join("cache");
    let run = |extra: &[&str]| {
        let out = Command::new(env!("CARGO_BIN_EXE_schrodinger"))
            .arg("scan-env")
            .arg("--python")
            .arg(venv.join("bin/python"))
            .arg("--cache-dir")
            .arg(&cache)
            .args(extra)
            .output()
            .unwrap();
        let text = String::from_utf8_lossy(&out.stdout).to_string()
            + &String::from_utf8_lossy(&out.stderr);
        (out.status.success(), text)
    };
    let (ok, text) = run(&[]);
    assert!(ok && text.contains("scanned in"), "{text}");
    let files: Vec<_> = std::fs::read_dir(&cache).unwrap().flatten().collect();
    assert_eq!(files.len(), 1, "{text}");
    let cached = files[0].path();
    // What a mount would load: the cached scan parses as one.
    let scan: EnvScan = serde_json::from_slice(&std::fs::read(&cached).unwrap()).unwrap();
    assert!(scan.modules.iter().any(|m| m == "json"));
    let (ok, text) = run(&[]);
    assert!(ok && text.contains("already cached"), "{text}");
    let (ok, text) = run(&["--check"]);
    assert!(ok && text.contains("holds the same data"), "{text}");
    // A cache holding something else fails the check.
    std::fs::write(&cached, "{\"modules\": []}").unwrap();
    let (ok, text) = run(&["--check"]);
    assert!(!ok && text.contains("differs"), "{text}");
}

/// Identifiers outside code matches the repository's names against: face rejects a middleware
/// whose first parameter is not `INNER_NAME = 'next_'` and calls it with a mapping keyed by
/// the parameter names it provides (`'posargs_'`); a name compared with `==` or `in` is
/// matched the same way. A string that is only printed stays free.
#[test]
fn identifiers_outside_code_matches_names_against_are_outside_names() {
    let d = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(d.path().join("stdlib")).unwrap();
    write(
        d.path(),
        "site/face/middleware.py",
        "INNER_NAME = 'next_'\n\
         _BUILTIN_PROVIDES = [INNER_NAME, 'flags_', 'post_posargs_']\n\
         def check(names, parser):\n    \
         if names[0] != INNER_NAME or names[1] in ('cmd_', 'subcmds_'):\n        \
         print('bad_middleware')\n    \
         return {'posargs_': parser.posargs}\n",
    );
    let s = scan(d.path(), "");
    let face = s.groups.get("face");
    for name in [
        "next_",
        "flags_",
        "post_posargs_",
        "cmd_",
        "subcmds_",
        "posargs_",
    ] {
        assert!(has(face, name), "{name} missing");
    }
    assert!(!has(face, "bad_middleware"));
}

/// A package's JSON data is outside data: jsonschema validates with the metaschemas that
/// `jsonschema_specifications` ships (files without an extension), and looks their keys
/// (`allOf`) up by name. Keys count, values and other files do not; a vendored copy's data
/// belongs to the vendored group.
#[test]
fn keys_of_json_data_a_package_ships_are_outside_names() {
    let d = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(d.path().join("stdlib")).unwrap();
    write(d.path(), "site/specs/__init__.py", "");
    write(
        d.path(),
        "site/specs/schemas/draft7/metaschema",
        "{\"allOf\": [{\"properties\": {\"$ref\": 1}}], \"title\": \"keepValue\"}",
    );
    write(
        d.path(),
        "site/specs/notes.txt",
        "{not json: butLooksLikeIt}",
    );
    write(d.path(), "site/host/__init__.py", "");
    write(
        d.path(),
        "site/host/_vendor/lib/data.json",
        "[{\"vendoredKey\": 1}]",
    );
    let s = scan(d.path(), "");
    let specs = s.groups.get("specs");
    assert!(has(specs, "allOf") && has(specs, "properties"), "{specs:?}");
    assert!(!has(specs, "keepValue") && !has(specs, "butLooksLikeIt"));
    assert!(has(s.groups.get("host._vendor.lib"), "vendoredKey"));
    assert!(!has(s.groups.get("host"), "vendoredKey"));
}
