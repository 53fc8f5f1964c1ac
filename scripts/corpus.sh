#!/usr/bin/env bash
# Corpus run (law 5, "same behaviour"): for each pinned PyPI source distribution, export the
# view, run the project's own tests on the original and on the view with the same arguments,
# compare test by test, compare what the test run changed in each tree, try the project's
# own `pip install -e .` in the view, and measure how much of the repository the view hides.
#
#   scripts/corpus.sh [--set work|held|all] [--only NAME] [--seed N] [--work DIR] [--native-only]
#                     [--time-mounted N] [--mounted]
#
# --set picks the working set (default), the held-aside set or both (see docs/corpus.md: the
# held-aside projects are measured once, at the end of a round of rule changes, so that no
# rule is tuned on them). --only NAME runs one project of any set. --native-only runs each
# project's tests on the original alone (no view is built or looked at): the check that a new
# held-aside project runs here at all, before any view of it is seen. --time-mounted N
# compares no outcomes: it times the test command N times on the original and on a *mounted*
# view of it (`schrodinger mount`, the same seed and environment; the suite's wall time from
# the mount returning, interleaved with the original's runs; the first mount has a new state
# directory, later ones keep it; with CORPUS_TIME_PREPARED=1 every mount has a state made
# beforehand by `mount --prepare`, as at image build time), and logs the times (results in
# NAME/timing/). --mounted runs the view's side on the view as an agent meets it instead of
# an export: `schrodinger mount` of a copy of the original (NAME/base/; what the tests write
# goes through the view into the copy), its shadow `.git` for the side effects. An export is
# a new directory, so it cannot keep the original's directory order (ext4 lists a large
# directory in the hash order of its names, and the view's names differ); the mount keeps it.
#
# Views are built with default options. CORPUS_VIEW_OPTS adds view options to every export
# and translate (e.g. CORPUS_VIEW_OPTS=--rename-pure-locals). CORPUS_FREEZE_DIR=DIR adds
# `--freeze DIR/NAME.txt` for each project that has such a file (unused by default).
# CORPUS_SKIP_INSTALL=1 skips the `pip install -e .` check.
#
# Work dir layout (default /var/tmp/schrodinger-corpus):
#   cache/NAME-VER/      the downloaded sdist (kept between runs)
#   NAME/original/       the unpacked sdist, a git repository (never committed to this project)
#   NAME/venv/           the test dependencies; the project itself is NOT installed; rebuilt
#                        only when its pinned dependency list changes (NAME/venv/.deps)
#   NAME/view/           `schrodinger export` of original, also made a git repository
#                        (with --mounted: the mount point, unmounted after the report)
#   NAME/results/        junit XML or runner logs, status of both trees, report.json
#
# Imports are arranged the same way on both sides: PYTHONPATH=<side>/<import root> (the view's
# import root is the translated name), tests run from <side> as the working directory, in a
# network namespace of their own (loopback only). pip talks to the package registry only.
set -uo pipefail

SEED=7
ONLY=""
NATIVE_ONLY=""
TIME_REPS=""
MOUNTED=""
SET=work
WORK=/var/tmp/schrodinger-corpus
while [ $# -gt 0 ]; do
    case "$1" in
        --seed) SEED="$2"; shift 2 ;;
        --only) ONLY="$2"; shift 2 ;;
        --set) SET="$2"; shift 2 ;;
        --work) WORK="$2"; shift 2 ;;
        --native-only) NATIVE_ONLY=1; shift ;;
        --time-mounted) TIME_REPS="$2"; shift 2 ;;
        --mounted) MOUNTED=1; shift ;;
        -h|--help) sed -n '2,42p' "$0"; exit 0 ;;
        *) echo "corpus.sh: unknown argument $1 (see --help)" >&2; exit 2 ;;
    esac
done
case "$SET" in work|held|all) ;; *) echo "corpus.sh: --set takes work, held or all" >&2; exit 2 ;; esac

ROOT=$(cd "$(dirname "$0")/.." && pwd)
BIN=${SCHRODINGER:-${CARGO_TARGET_DIR:-$ROOT/target}/release/schrodinger}
PYTHON=${CORPUS_PYTHON:-python3}
TEST_TIMEOUT=${CORPUS_TEST_TIMEOUT:-1200}
INSTALL_TIMEOUT=${CORPUS_INSTALL_TIMEOUT:-600}

if [ -z "$NATIVE_ONLY" ] && [ ! -x "$BIN" ]; then
    (cd "$ROOT" && cargo build --release) || exit 1
fi

PYTEST=pytest==8.3.3
# set|name|version|runner|import root|import names|test arguments|test dependencies (pinned)|deselected test ids|metadata
#
# metadata: "yes" puts a distribution record of the project (a .dist-info with METADATA only,
# no code) into the venv, for packages that read their own version with importlib.metadata,
# and one under the view's name when the view renames the distribution (as the view's own
# editable install would).
# runner: pytest (junit XML) or django (tests/runtests.py --verbosity=2, read as unittest).
# What each project is here for is in docs/corpus.md ("The corpus").
PROJECTS=(
    "work|flask|3.0.3|pytest|src|flask|tests|$PYTEST werkzeug==3.0.4 jinja2==3.1.4 itsdangerous==2.2.0 click==8.1.7 blinker==1.8.2 asgiref==3.8.1 python-dotenv==1.0.1|"
    "work|click|8.1.7|pytest|src|click|tests|$PYTEST|"
    "work|jinja2|3.1.4|pytest|src|jinja2|tests|$PYTEST markupsafe==2.1.5|"
    "work|attrs|24.2.0|pytest|src|attr attrs|tests|$PYTEST hypothesis==6.112.1 cloudpickle==3.0.0|"
    "work|more-itertools|10.5.0|pytest|.|more_itertools|tests|$PYTEST|"
    "work|toolz|0.12.1|pytest|.|toolz tlz|toolz/tests|$PYTEST|"
    "work|pluggy|1.5.0|pytest|src|pluggy|testing|$PYTEST|"
    "work|iniconfig|1.1.1|pytest|src|iniconfig|testing|$PYTEST py==1.11.0|"
    "work|python-dateutil|2.9.0.post0|pytest|src|dateutil|tests|$PYTEST pytest-cov==5.0.0 hypothesis==6.112.1 freezegun==1.5.1 six==1.16.0|"
    "work|tomlkit|0.13.2|pytest|.|tomlkit|tests|$PYTEST pyyaml==6.0.2|"
    "work|babel|2.16.0|pytest|.|babel|tests|$PYTEST freezegun==1.5.1 pytz==2024.2|"
    "work|markupsafe|2.1.5|pytest|src|markupsafe|tests|$PYTEST|"
    "work|django|4.2.16|django|.|django|tests/runtests.py basic lookup many_to_one model_forms utils_tests i18n view_tests middleware test_client requests_tests handlers csrf_tests cache conditional_processing syndication_tests sessions_tests generic_views messages_tests|asgiref==3.8.1 sqlparse==0.5.1|"
    "work|sympy|1.13.2|pytest|.|sympy|sympy/core/tests/test_basic.py sympy/logic/tests/test_boolalg.py sympy/sets/tests/test_sets.py sympy/utilities/tests/test_iterables.py|$PYTEST mpmath==1.3.0 hypothesis==6.112.1|"
    "work|six|1.16.0|pytest|.|six|test_six.py|$PYTEST|"
    "work|pyparsing|3.1.4|pytest|.|pyparsing|tests|$PYTEST|"
    "work|pyflakes|3.2.0|pytest|.|pyflakes|pyflakes/test|$PYTEST|"
    "work|markdown|3.7|pytest|.|markdown|tests|$PYTEST|"
    "work|wcwidth|0.2.13|pytest|.|wcwidth|tests|$PYTEST pytest-cov==5.0.0|"
    "work|jmespath|1.0.1|pytest|.|jmespath|tests|$PYTEST|"
    "work|packaging|24.1|pytest|src|packaging|tests|$PYTEST pretend==1.0.9|"
    "work|cachetools|5.5.0|pytest|src|cachetools|tests|$PYTEST|"
    "work|idna|3.8|pytest|.|idna|tests|$PYTEST|"
    "work|humanize|4.10.0|pytest|src|humanize|tests|$PYTEST pytest-cov==5.0.0 freezegun==1.5.1||yes"
    "work|itsdangerous|2.2.0|pytest|src|itsdangerous|tests|$PYTEST freezegun==1.5.1|"
    "work|pyrsistent|0.20.0|pytest|.|pyrsistent|tests|$PYTEST hypothesis==6.112.1|"
    "work|blinker|1.8.2|pytest|src|blinker|tests|$PYTEST pytest-asyncio==0.24.0|"
    "work|isodate|0.6.1|pytest|src|isodate|src/isodate/tests|$PYTEST six==1.16.0|"
    "work|parse|1.20.2|pytest|.|parse|tests|$PYTEST|"
    "work|semver|3.0.2|pytest|src|semver|tests|$PYTEST pytest-cov==5.0.0|"
    "work|tabulate|0.9.0|pytest|.|tabulate|test|$PYTEST wcwidth==0.2.13|"
    "work|xmltodict|0.13.0|pytest|.|xmltodict|tests|$PYTEST|"
    "work|cssselect|1.2.0|pytest|.|cssselect|tests|$PYTEST lxml==5.3.0|"
    "work|inflection|0.5.1|pytest|.|inflection|test_inflection.py|$PYTEST|"
    "work|pathspec|0.12.1|pytest|.|pathspec|tests|$PYTEST|"
    "work|decorator|5.1.1|pytest|src|decorator|src/tests/test.py|$PYTEST|"
    "work|sqlparse|0.5.1|pytest|.|sqlparse|tests|$PYTEST|"
    "work|boltons|24.0.0|pytest|.|boltons|tests|$PYTEST|"
    "work|python-dotenv|1.0.1|pytest|src|dotenv|tests|$PYTEST click==8.1.7 sh==2.0.7|"
    "work|colorama|0.4.6|pytest|.|colorama|colorama/tests|$PYTEST|"
    "work|natsort|8.4.0|pytest|.|natsort|tests|$PYTEST hypothesis==6.112.1 pytest-mock==3.14.0|"
    "work|toml|0.10.2|pytest|.|toml|tests|$PYTEST|"
    "work|mistune|3.0.2|pytest|src|mistune|tests|$PYTEST|"
    "work|marshmallow|3.22.0|pytest|src|marshmallow|tests|$PYTEST packaging==24.1 pytz==2024.2 simplejson==3.19.3||yes"
    "work|voluptuous|0.15.2|pytest|.|voluptuous|voluptuous/tests|$PYTEST|"
    "work|pycparser|2.22|pytest|.|pycparser|tests|$PYTEST|"
    "work|parso|0.8.4|pytest|.|parso|test|$PYTEST docopt==0.6.2|"
    "work|ecdsa|0.19.0|pytest|src|ecdsa|src/ecdsa|$PYTEST six==1.16.0 hypothesis==6.112.1 attrs==24.2.0 sortedcontainers==2.4.0|"
    "work|schema|0.7.7|pytest|.|schema|test_schema.py|$PYTEST|"
    "work|jsonpointer|3.0.0|pytest|.|jsonpointer|tests.py|$PYTEST|"
    "work|chardet|5.2.0|pytest|.|chardet|test.py|$PYTEST hypothesis==6.112.1|"
    "work|pyasn1|0.6.1|pytest|.|pyasn1|tests|$PYTEST|"
    "work|jsonpatch|1.33|pytest|.|jsonpatch|tests.py|$PYTEST jsonpointer==3.0.0|"
    "work|uritemplate|4.1.1|pytest|.|uritemplate|tests|$PYTEST|"
    "work|webcolors|24.8.0|pytest|src|webcolors|tests/test_conversion.py tests/test_html5.py tests/test_normalization.py|$PYTEST|"
    "work|termcolor|2.4.0|pytest|src|termcolor|tests|$PYTEST|"
    "work|configobj|5.0.9|pytest|src|configobj validate|src/tests|$PYTEST six==1.16.0|"
    "work|prettytable|3.11.0|pytest|src|prettytable|tests|$PYTEST wcwidth==0.2.13 pytest-lazy-fixtures==1.1.1||yes"
    "work|asttokens|2.4.1|pytest|.|asttokens|tests|$PYTEST six==1.16.0 astroid==3.2.4|"
    "work|h11|0.14.0|pytest|.|h11|h11/tests|$PYTEST|"
    "work|hyperlink|21.0.0|pytest|src|hyperlink|src/hyperlink/test|$PYTEST idna==3.8|"
    "work|munch|4.0.0|pytest|.|munch|tests|$PYTEST pyyaml==6.0.2|"
    "work|nameparser|1.1.3|pytest|.|nameparser|tests.py|$PYTEST|"
    "work|ordered-set|4.1.0|pytest|.|ordered_set|test|$PYTEST|"
    "work|pytz|2024.2|pytest|.|pytz|pytz/tests|$PYTEST|"
    "work|rfc3986|2.0.0|pytest|src|rfc3986|tests|$PYTEST idna==3.8|"
    "work|lark|1.2.2|pytest|.|lark|tests|$PYTEST regex==2024.9.11 interegular==0.3.3|"
    "work|pyjwt|2.9.0|pytest|.|jwt|tests|$PYTEST cryptography==43.0.1 cffi==1.17.1 pycparser==2.22|tests/test_jwks_client.py::TestPyJWKClient::test_get_jwt_set_sslcontext_default tests/test_jwks_client.py::TestPyJWKClient::test_get_jwt_set_sslcontext_no_ca"
    "work|aniso8601|9.0.1|pytest|.|aniso8601|aniso8601|$PYTEST|"
    "work|croniter|3.0.3|pytest|src|croniter|src/croniter/tests|$PYTEST python-dateutil==2.9.0.post0 six==1.16.0 pytz==2024.2|"
    "work|face|24.0.0|pytest|.|face|face/test|$PYTEST boltons==24.0.0|"
    "work|glom|24.11.0|pytest|.|glom|glom/test|$PYTEST attrs==24.2.0 boltons==24.0.0 face==24.0.0 pyyaml==6.0.2|"
    "work|inflect|7.4.0|pytest|.|inflect|tests|$PYTEST more-itertools==10.5.0 typeguard==4.3.0 typing-extensions==4.12.2|"
    "work|pydash|8.0.3|pytest|src|pydash|tests/test_annotations.py tests/test_arrays.py tests/test_chaining.py tests/test_collections.py tests/test_functions.py tests/test_numerical.py tests/test_objects.py tests/test_predicates.py tests/test_strings.py tests/test_utilities.py|$PYTEST pytest-cov==5.0.0 typing-extensions==4.12.2|"
    "work|fire|0.7.0|pytest|.|fire|fire|$PYTEST termcolor==2.4.0 hypothesis==6.112.1|"
    "work|parsimonious|0.10.0|pytest|.|parsimonious|parsimonious/tests|$PYTEST regex==2024.9.11|"
    "work|pycountry|24.6.1|pytest|src|pycountry|src/pycountry/tests|$PYTEST pytest-cov==5.0.0||yes"
    "work|mako|1.3.5|pytest|.|mako|test|$PYTEST markupsafe==2.1.5 babel==2.16.0 pygments==2.18.0 beaker==1.13.0 dogpile.cache==1.3.3 decorator==5.1.1 stevedore==5.3.0 pbr==6.1.0 typing-extensions==4.12.2|"
    "work|polib|1.2.0|pytest|.|polib|tests/tests.py|$PYTEST|"
    "work|freezegun|1.5.1|pytest|.|freezegun|tests|$PYTEST python-dateutil==2.9.0.post0 six==1.16.0|"
    "work|icalendar|5.0.13|pytest|src|icalendar|src/icalendar/tests|$PYTEST python-dateutil==2.9.0.post0 six==1.16.0 pytz==2024.2 hypothesis==6.112.1|"
    "work|jsonpath-ng|1.6.1|pytest|.|jsonpath_ng|tests|$PYTEST ply==3.11|"
    "work|addict|2.4.0|pytest|.|addict|test_addict.py|$PYTEST|"
    "work|soupsieve|2.6|pytest|.|soupsieve|tests|$PYTEST beautifulsoup4==4.12.3|"
    "work|text-unidecode|1.3|pytest|src|text_unidecode|test_unidecode.py|$PYTEST|"
    "work|tinycss2|1.4.0|pytest|.|tinycss2|tests|$PYTEST webencodings==0.5.1|"
    "work|webencodings|0.5.1|pytest|.|webencodings|webencodings/tests.py|$PYTEST|"
    "work|iso8601|2.1.0|pytest|.|iso8601|iso8601|$PYTEST hypothesis==6.112.1 pytz==2024.2|"
    "work|dpath|2.2.0|pytest|.|dpath|tests|$PYTEST hypothesis==6.112.1 nose2==0.15.1|"
    "work|portion|2.4.2|pytest|.|portion|tests|$PYTEST sortedcontainers==2.4.0|"
    "work|pyhamcrest|2.1.0|pytest|src|hamcrest|tests/hamcrest_unit_test|$PYTEST|"
    "work|boolean.py|4.0|pytest|.|boolean|boolean/test_boolean.py|$PYTEST|"
    "work|semantic-version|2.10.0|pytest|.|semantic_version|tests|$PYTEST|"
    "work|validators|0.34.0|pytest|src|validators|tests|$PYTEST|"
    "work|emoji|2.14.0|pytest|.|emoji|tests|$PYTEST|"
    "work|funcy|2.0|pytest|.|funcy|tests|$PYTEST whatever==0.7|"
    "work|tenacity|9.0.0|pytest|.|tenacity|tests|$PYTEST tornado==6.4.1 typeguard==4.3.0 typing_extensions==4.12.2|"
    "work|unidecode|1.3.8|pytest|.|unidecode|tests|$PYTEST|"
    "work|bleach|6.1.0|pytest|.|bleach|tests|$PYTEST six==1.16.0 webencodings==0.5.1 tinycss2==1.4.0|"
    "work|astor|0.8.1|pytest|.|astor|tests|$PYTEST|"
    "work|bracex|2.5|pytest|.|bracex|tests|$PYTEST|"
    "work|pygtrie|2.5.0|pytest|.|pygtrie|test.py|$PYTEST|"
    "work|simplejson|3.19.3|pytest|.|simplejson|simplejson/tests|$PYTEST|"
    "work|num2words|0.5.13|pytest|.|num2words|tests|$PYTEST docopt==0.6.2 delegator.py==0.1.1 pexpect==4.9.0 ptyprocess==0.7.0|"
    "work|astunparse|1.6.3|pytest|lib|astunparse|tests|$PYTEST six==1.16.0 wheel==0.44.0|"
    "work|wcmatch|10.0|pytest|.|wcmatch|tests|$PYTEST bracex==2.5|"
    "work|cssutils|2.11.1|pytest|.|cssutils encutils|cssutils/tests|$PYTEST more-itertools==10.5.0 jaraco.test==5.5.1 cssselect==1.2.0 lxml==5.3.0|"
    "work|hyperframe|6.0.1|pytest|src|hyperframe|test|$PYTEST|"
    "work|jsonpickle|3.3.0|pytest|.|jsonpickle|tests|$PYTEST simplejson==3.19.3|"
    "work|priority|2.0.0|pytest|src|priority|test|$PYTEST hypothesis==6.112.1|"
    "work|wsproto|1.2.0|pytest|src|wsproto|test|$PYTEST h11==0.14.0|"
    "work|h2|4.1.0|pytest|src|h2|test|$PYTEST hpack==4.0.0 hyperframe==6.0.1 hypothesis==6.112.1|"
    "work|pyasn1-modules|0.4.1|pytest|.|pyasn1_modules|tests|$PYTEST pyasn1==0.5.1|"
    "work|commonmark|0.9.1|pytest|.|commonmark|commonmark/tests/unit_tests.py commonmark/tests/rst_tests.py|$PYTEST hypothesis==6.112.1|"
    "work|docstring-parser|0.16|pytest|.|docstring_parser|docstring_parser/tests|$PYTEST|"
    "work|pure-eval|0.2.3|pytest|.|pure_eval|tests|$PYTEST|"
    "work|parse-type|0.6.4|pytest|.|parse_type|tests|$PYTEST parse==1.20.2 six==1.16.0 pytest-html==4.1.1 pytest-metadata==3.1.1 jinja2==3.1.4 markupsafe==2.1.5|"
    "work|mpmath|1.3.0|pytest|.|mpmath|mpmath/tests|$PYTEST|"
    "work|anytree|2.13.0|pytest|src|anytree|tests|$PYTEST pytest-cov==5.0.0 test2ref==1.3.0 binaryornot==0.6.0|"
    "work|mistletoe|1.6.0|pytest|.|mistletoe|test|$PYTEST parameterized==0.9.0 pygments==2.16.1|"
    "work|w3lib|2.5.0|pytest|.|w3lib|tests|$PYTEST hypothesis==6.112.1|tests/test_url.py::TestPrivateHelpersProperties::test_parse_qs_matches_stdlib tests/test_url.py::TestPrivateHelpersProperties::test_parse_qsl_matches_stdlib"
    "work|transitions|0.9.3|pytest|.|transitions|tests/test_add_remove.py tests/test_async.py tests/test_core.py tests/test_enum.py tests/test_experimental.py tests/test_factory.py tests/test_graphviz.py tests/test_imports.py tests/test_markup.py tests/test_mermaid.py tests/test_nesting.py tests/test_parallel.py tests/test_pygraphviz.py tests/test_reuse.py tests/test_states.py tests/test_threading.py|$PYTEST six==1.16.0 mock==5.1.0 dill==0.3.8|"
    "work|pyotp|2.12.1|pytest|src|pyotp|test.py|$PYTEST|"
    "work|furl|2.1.4|pytest|.|furl|tests|$PYTEST six==1.16.0 orderedmultidict==1.0.1|"
    "work|humanfriendly|10.0|pytest|.|humanfriendly|humanfriendly/tests.py|$PYTEST docutils==0.21.2 mock==5.1.0|humanfriendly/tests.py::HumanFriendlyTestCase::test_generate_warning humanfriendly/tests.py::HumanFriendlyTestCase::test_prompt_for_confirmation humanfriendly/tests.py::HumanFriendlyTestCase::test_terminal_capabilities"
    "work|html2text|2024.2.26|pytest|.|html2text|test|$PYTEST|"
    "work|beautifulsoup4|4.12.3|pytest|.|bs4|bs4/tests|$PYTEST soupsieve==2.6 lxml==5.3.0 html5lib==1.1 six==1.16.0 webencodings==0.5.1|bs4/tests/test_css.py::TestCSSSelectors::test_unsupported_pseudoclass bs4/tests/test_lxml.py::TestLXMLTreeBuilder::test_real_xhtml_document bs4/tests/test_lxml.py::TestLXMLTreeBuilder::test_namespaced_html bs4/tests/test_lxml.py::TestLXMLTreeBuilder::test_detect_xml_parsed_as_html"
    "work|arrow|1.3.0|pytest|.|arrow|tests|$PYTEST pytest-cov==5.0.0 pytest-mock==3.14.0 python-dateutil==2.9.0.post0 six==1.16.0 types-python-dateutil==2.9.0.20240906 pytz==2021.1 simplejson==3.19.3 dateparser==1.2.0 regex==2024.9.11 tzlocal==5.2|"
    "work|bitstring|4.2.3|pytest|.|bitstring|tests|$PYTEST bitarray==2.9.2 gfloat==0.4 numpy==2.1.1 more-itertools==10.5.0 hypothesis==6.112.1 pytest-benchmark==4.0.0 py-cpuinfo==9.0.0|"
    "work|asyncstdlib|3.12.5|pytest|.|asyncstdlib|unittests|$PYTEST|"
    "work|cleo|2.1.0|pytest|src|cleo|tests|$PYTEST crashtest==0.4.1 rapidfuzz==3.9.7 pytest-mock==3.14.0|"
    "work|jsonschema|4.23.0|pytest|.|jsonschema|jsonschema/tests|$PYTEST attrs==24.2.0 jsonschema-specifications==2023.12.1 referencing==0.35.1 rpds-py==0.20.0 idna==3.8 jsonpointer==3.0.0 webcolors==24.8.0 rfc3339-validator==0.1.4 six==1.16.0 uri-template==1.3.0 fqdn==1.5.1|jsonschema/tests/test_cli.py::TestCLIIntegration::test_license|yes"
    "work|ftfy|6.2.3|pytest|.|ftfy|tests|$PYTEST wcwidth==0.2.13|tests/test_cli.py::test_basic tests/test_cli.py::test_guess_bytes tests/test_cli.py::test_alternate_encoding tests/test_cli.py::test_wrong_encoding tests/test_cli.py::test_same_file tests/test_cli.py::test_stdin"
    "work|json5|0.9.25|pytest|.|json5|tests|$PYTEST|"
    "work|traitlets|5.14.3|pytest|.|traitlets|tests/config tests/utils tests/test_traitlets.py tests/test_traitlets_docstring.py tests/test_traitlets_enum.py|$PYTEST argcomplete==3.5.0 pytest-mock==3.14.0|"
    "work|aiofiles|24.1.0|pytest|src|aiofiles|tests|$PYTEST pytest-asyncio==0.24.0|tests/test_os.py::test_access"
    "work|argh|0.31.3|pytest|src|argh|tests|$PYTEST|"
    "work|pint|0.24.3|pytest|.|pint|pint/testsuite/test_application_registry.py pint/testsuite/test_babel.py pint/testsuite/test_compat.py pint/testsuite/test_compat_downcast.py pint/testsuite/test_compat_upcast.py pint/testsuite/test_contexts.py pint/testsuite/test_converters.py pint/testsuite/test_dask.py pint/testsuite/test_definitions.py pint/testsuite/test_diskcache.py pint/testsuite/test_errors.py pint/testsuite/test_formatter.py pint/testsuite/test_formatting.py pint/testsuite/test_infer_base_unit.py pint/testsuite/test_issues.py pint/testsuite/test_log_units.py pint/testsuite/test_matplotlib.py pint/testsuite/test_measurement.py pint/testsuite/test_non_int.py pint/testsuite/test_numpy.py pint/testsuite/test_numpy_func.py pint/testsuite/test_pint_eval.py pint/testsuite/test_pitheorem.py pint/testsuite/test_quantity.py pint/testsuite/test_systems.py pint/testsuite/test_testing.py pint/testsuite/test_umath.py pint/testsuite/test_unit.py pint/testsuite/test_util.py|$PYTEST pytest-subtests==0.13.1 appdirs==1.4.4 typing-extensions==4.12.2 flexcache==0.3 flexparser==0.3.1|"
    "work|webob|1.8.11|pytest|src|webob|tests|$PYTEST|"
    "work|bottle|0.13.5|pytest|.|bottle|test|$PYTEST jinja2==3.1.4 markupsafe==2.1.5 mako==1.3.5|"
    "work|wtforms|3.3.2|pytest|src|wtforms|tests|$PYTEST markupsafe==2.1.5 babel==2.16.0 email-validator==2.4.0 dnspython==2.9.2 idna==3.8|"
    "work|prompt-toolkit|3.0.53|pytest|src|prompt_toolkit|tests|$PYTEST wcwidth==0.2.13|"
    "work|asteval|1.0.5|pytest|.|asteval|tests|$PYTEST pytest-cov==5.0.0 coverage==7.6.1|"
    "work|simpleeval|1.0.3|pytest|.|simpleeval|test_simpleeval.py|$PYTEST|"
    "work|docopt-ng|0.9.0|pytest|.|docopt|tests|$PYTEST|"
    "work|python-json-logger|2.0.7|pytest|src|pythonjsonlogger|tests|$PYTEST|"
    "work|pytimeparse|1.1.8|pytest|.|pytimeparse|pytimeparse/tests/testtimeparse.py|$PYTEST|"
    "work|hjson|3.1.0|pytest|.|hjson|hjson/tests|$PYTEST|"
    "work|base58|2.1.1|pytest|.|base58|test_base58.py test_base45.py|$PYTEST pyhamcrest==2.1.0 pytest-benchmark==4.0.0|"
    "work|hashids|1.3.1|pytest|.|hashids|test|$PYTEST|"
    "work|outcome|1.3.0.post0|pytest|src|outcome|tests|$PYTEST attrs==24.2.0 typing_extensions==4.12.2 pytest-asyncio==0.24.0|"
    "work|platformdirs|4.3.6|pytest|src|platformdirs|tests|$PYTEST appdirs==1.4.4 covdefaults==2.3.0 pytest-cov==5.0.0 pytest-mock==3.14.0|"
    "work|shortuuid|1.0.13|pytest|.|shortuuid|shortuuid/test_shortuuid.py|$PYTEST|"
    "work|pystache|0.6.5|pytest|.|pystache|pystache/tests|$PYTEST|"
    "held|colander|2.0|pytest|src|colander|tests|$PYTEST translationstring==1.4 iso8601==2.1.0|"
    "held|translationstring|1.4|pytest|.|translationstring|translationstring/tests|$PYTEST|"
    "held|python-gettext|5.0|pytest|src|pythongettext|src/pythongettext/tests|$PYTEST|"
    "held|feedgenerator|2.1.0|pytest|.|feedgenerator|tests|$PYTEST pytz==2024.2 pytest-cov==5.0.0|"
    "held|mccabe|0.7.0|pytest|.|mccabe|test_mccabe.py|$PYTEST hypothesis==6.112.1 hypothesmith==0.3.3|"
    "held|wheel|0.45.1|pytest|src|wheel|tests|$PYTEST setuptools==75.1.0|"
    "held|pygments|2.18.0|pytest|.|pygments|tests|$PYTEST|"
    "held|structlog|24.4.0|pytest|src|structlog|tests|$PYTEST freezegun==1.5.1 pretend==1.0.9 pytest-asyncio==0.24.0 simplejson==3.19.3||yes"
    "held|deepdiff|8.0.1|pytest|.|deepdiff|tests|$PYTEST orderly-set==5.2.2 jsonpickle==3.2.1 python-dateutil==2.9.0.post0 numpy==2.1.2 click==8.1.7 pyyaml==6.0.2 tomli-w==1.0.0|"
    "held|pyte|0.8.2|pytest|.|pyte|tests|$PYTEST wcwidth==0.2.13|"
    "held|loguru|0.7.2|pytest|.|loguru|tests|$PYTEST freezegun==1.5.1 colorama==0.4.6|"
    "held|mock|5.1.0|pytest|.|mock|mock/tests|$PYTEST|"
    "held|typeguard|4.3.0|pytest|src|typeguard|tests|$PYTEST typing_extensions==4.12.2||yes"
    "held|filelock|3.16.1|pytest|src|filelock|tests|$PYTEST pytest-asyncio==0.24.0 pytest-mock==3.14.0 pytest-timeout==2.3.1 virtualenv==20.26.6|"
    "held|texttable|1.7.0|pytest|.|texttable|tests.py|$PYTEST|"
    "held|titlecase|2.4.1|pytest|.|titlecase|titlecase/tests.py|$PYTEST regex==2024.9.11|"
    "held|werkzeug|3.0.4|pytest|src|werkzeug|tests --ignore=tests/test_serving.py|$PYTEST markupsafe==2.1.5 pytest-timeout==2.3.1 pytest-xprocess==0.23.0 ephemeral-port-reserve==1.1.4 cryptography==42.0.7 watchdog==4.0.0|tests/middleware/test_http_proxy.py::test_http_proxy tests/test_debug.py::test_basic[True] tests/test_debug.py::test_basic[False]"
    "held|docutils|0.21.2|pytest|.|docutils|test|$PYTEST|"
    "held|tqdm|4.66.5|pytest|.|tqdm|tests|$PYTEST pytest-timeout==2.3.1 pytest-asyncio==0.24.0|"
    "held|dill|0.3.9|pytest|.|dill|dill/tests|$PYTEST|"
    "held|treelib|1.7.0|pytest|.|treelib|tests|$PYTEST six==1.16.0|"
    "held|diskcache|5.6.3|pytest|.|diskcache|tests/test_core.py tests/test_deque.py tests/test_doctest.py tests/test_fanout.py tests/test_index.py tests/test_recipes.py|$PYTEST|"
    "held|parsedatetime|2.6|pytest|.|parsedatetime|tests -opython_files=Test*.py|$PYTEST|"
    "held|cerberus|1.3.4|pytest|.|cerberus|cerberus/tests|$PYTEST|"
    "held|tzlocal|5.2|pytest|.|tzlocal|tests|$PYTEST pytest-mock==3.14.0|"
    "held|schedule|1.2.2|pytest|.|schedule|test_schedule.py|$PYTEST|"
    "held|autopep8|2.3.1|pytest|.|autopep8|test|$PYTEST pycodestyle==2.12.1|"
    "held|markdown2|2.5.1|pytest|lib|markdown2|test/test_markdown2.py|$PYTEST pygments==2.18.0|"
    "held|thefuzz|0.22.1|pytest|.|thefuzz|test_thefuzz.py|$PYTEST rapidfuzz==3.10.1 pycodestyle==2.12.1 hypothesis==6.112.1|"
    "held|feedparser|6.0.11|pytest|.|feedparser|tests/runtests.py|$PYTEST sgmllib3k==1.0.0|"
    "held|astroid|3.3.5|pytest|.|astroid|tests|$PYTEST|"
    "held|uritools|7.0.1|pytest|src|uritools|tests|$PYTEST|"
    "held|url-normalize|3.1.0|pytest|.|url_normalize|tests -o addopts=|$PYTEST idna==3.21|"
    "held|python-multipart|0.0.20|pytest|.|python_multipart|tests|$PYTEST pyyaml==6.0.2|"
    "held|multipart|1.2.1|pytest|.|multipart|test|$PYTEST|"
    "held|tinydb|4.8.0|pytest|.|tinydb|tests|$PYTEST|"
    "held|faker|30.8.2|pytest|.|faker|tests --ignore=tests/pytest|$PYTEST python-dateutil==2.9.0.post0 typing_extensions==4.12.2 freezegun==1.5.1 ukpostcodeparser==1.1.2 validators==0.34.0 xmltodict==0.13.0|"
    "held|jsonlines|4.0.0|pytest|.|jsonlines|tests|$PYTEST attrs==24.2.0|"
    "held|marko|2.1.2|pytest|.|marko|tests|$PYTEST pygments==2.18.0 python-slugify==8.0.4|"
    "held|radon|6.0.1|pytest|.|radon|radon/tests|$PYTEST mando==0.7.1 colorama==0.4.6 pytest-mock==3.14.0|"
    "held|black|24.8.0|pytest|src|black blackd blib2to3 _black_version|tests --ignore=tests/test_blackd.py --ignore=tests/test_ipynb.py|$PYTEST click==8.1.7 mypy-extensions==1.0.0 packaging==24.1 pathspec==0.12.1 platformdirs==4.3.6|"
    "held|parsy|2.1|pytest|src|parsy|tests|$PYTEST|"
    "held|email-validator|2.2.0|pytest|.|email_validator|tests|$PYTEST dnspython==2.7.0 idna==3.8|"
    "held|python-stdnum|1.20|pytest|.|stdnum|-o addopts= --doctest-modules --doctest-glob=*.doctest stdnum tests --ignore=stdnum/iso9362.py|$PYTEST|"
    "held|pyyaml|6.0.2|pytest|lib|yaml _yaml|tests/legacy_tests|$PYTEST|"
    # fresh held-aside set of run 50 (drawn before run 50's rule was measured on them)
    "held|isort|5.13.2|pytest|.|isort|tests/unit --ignore=tests/unit/test_pylama_isort.py|$PYTEST hypothesis==6.112.1 pytest-mock==3.14.0 colorama==0.4.6 black==24.8.0||yes"
    "held|sqlglot|25.24.0|pytest|.|sqlglot|tests --ignore=tests/test_executor.py|$PYTEST pytz==2024.2 duckdb==1.1.1 pandas==2.2.3|"
    "held|textdistance|4.6.3|pytest|.|textdistance|tests --ignore=tests/test_external.py|$PYTEST hypothesis==6.112.1 numpy==2.1.2|"
    "held|zipp|3.20.2|pytest|.|zipp|tests|$PYTEST jaraco.itertools==6.4.1 jaraco.functools==4.1.0 more-itertools==10.5.0 big-O==0.11.0 jaraco.test==5.5.1|"
)

mkdir -p "$WORK/cache"
WORK=$(cd "$WORK" && pwd)

log() { printf '[corpus] %s\n' "$*" >&2; }

# Locales some suites set (natsort's fixtures load en_US.UTF-8 and de_DE.UTF-8 and fail
# without them, on both sides alike): generated once on Debian when missing and run as root.
need_locales() {
    local missing=()
    for l in en_US de_DE; do
        locale -a 2>/dev/null | grep -qix "$l.utf-\?8" || missing+=("$l")
    done
    [ ${#missing[@]} -eq 0 ] && return
    if [ "$(id -u)" = 0 ] && [ -w /etc/locale.gen ] && command -v locale-gen >/dev/null; then
        log "generating locales ${missing[*]} (UTF-8) for the suites that set them"
        for l in "${missing[@]}"; do
            grep -q "^$l.UTF-8 UTF-8" /etc/locale.gen || echo "$l.UTF-8 UTF-8" >>/etc/locale.gen
        done
        locale-gen >/dev/null 2>&1 || log "locale-gen failed: suites that set ${missing[*]} will error on both sides"
    else
        log "locales ${missing[*]} (UTF-8) are missing: suites that set them will error on both sides"
    fi
}
need_locales

# translate DIRECTION NAME: stdin -> stdout with the project's view options
translate() {
    # shellcheck disable=SC2086
    "$BIN" translate --seed "$SEED" --python "$WORK/$2/venv/bin/python" ${VIEW_OPTS:-} \
        --to "$1" "$WORK/$2/original"
}

# failed NAME VERSION SET STEP LOGFILE: a report.json that says which step failed
failed() {
    log "$1: $4 failed (see $5)"
    "$PYTHON" "$ROOT/scripts/corpus_report.py" failed --name "$1" --version "$2" --set "$3" \
        --step "$4" --log "$5" --dir "$WORK/$1"
}

commit_tree() {
    git -C "$1" init -q &&
        git -C "$1" add -A -f &&
        git -C "$1" -c user.name=corpus -c user.email=corpus@localhost commit -q -m "$2"
}

# run_side SIDE ROOT ARGS DESELECT: the project's tests on one side, without network
run_side() {
    local side=$1 sroot=$2 sargs=$3 sdesel=$4
    local args=() d rc
    for d in $sdesel; do args+=(--deselect "$d"); done
    local cmd
    if [ "$RUNNER" = django ]; then
        # shellcheck disable=SC2206
        cmd=("$PY" $sargs --verbosity=2 --parallel 1)
    else
        # shellcheck disable=SC2206
        # --tb=native: pytest's own traceback rendering took minutes per module where
        # thousands of tests fail (babel's view); the native one is also what a user sees.
        # --maxfail after the project's own `addopts = -x` (transitions) lifts it: one
        # failure in the view must not hide how every other test came out.
        cmd=("$PY" -m pytest -q -p no:cacheprovider --continue-on-collection-errors --tb=native
            --maxfail=1000000000
            --junitxml="$RES/$side.xml" $sargs ${args[@]+"${args[@]}"})
    fi
    # A user cache directory of its own for each run: pint keeps parsed definitions in
    # `~/.cache/<package>`, and a view read the pickles a run of another map had left there.
    rm -rf "$RES/cache-$side"
    (cd "$DIR/$side" && env PYTHONPATH="$DIR/$side/$sroot" PYTHONDONTWRITEBYTECODE=1 \
        PYTHONHASHSEED=0 HYPOTHESIS_STORAGE_DIRECTORY="$RES/hypothesis-$side" \
        XDG_CACHE_HOME="$RES/cache-$side" \
        unshare -n sh -c 'ip link set lo up 2>/dev/null; exec timeout "$0" "$@"' "$TEST_TIMEOUT" "${cmd[@]}") \
        >"$RES/$side.log" 2>&1
    rc=$?
    echo "$rc" >"$RES/$side.rc"
    log "$side (exit $rc): $(tail -n1 "$RES/$side.log")"
}

# view_dist_info NAME VERSION SITE: the view's own distribution record, as its editable
# install (or `repoint`) would make one, when the view renames the distribution
view_dist_info() {
    local vname
    vname=$(printf '%s' "$1" | translate view "$1")
    if [ -n "$vname" ] && [ "$vname" != "$1" ]; then
        mkdir -p "$3/$vname-$2.dist-info"
        printf 'Metadata-Version: 2.1\nName: %s\nVersion: %s\n' "$vname" "$2" \
            >"$3/$vname-$2.dist-info/METADATA"
    fi
}

# time_side SIDE ROOT ARGS DESELECT: run_side, and print its wall time in seconds
time_side() {
    local t0 t1
    t0=$(date +%s%N)
    run_side "$@"
    t1=$(date +%s%N)
    awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", (b - a) / 1e9 }'
}

# time_project ROOT ARGS DESELECT: --time-mounted, for the project set up in $DIR
time_project() {
    local sroot=$1 sargs=$2 sdesel=$3 i t0 t1 o v m
    local vroot vargs vdesel state="$RES/state" mnt="$DIR/mnt" orig=() view=() mounts=()
    vroot=$(printf '%s' "$sroot" | translate view "$NAME")
    vargs=$(printf '%s' "$sargs" | translate view "$NAME")
    vdesel=$(printf '%s' "$sdesel" | translate view "$NAME")
    mkdir -p "$mnt"
    if [ -n "${CORPUS_TIME_PREPARED:-}" ]; then
        # the state an image build makes (`mount --prepare`), untimed: every round mounts it
        # shellcheck disable=SC2086
        if ! "$BIN" mount --prepare --seed "$SEED" --python "$PY" ${VIEW_OPTS:-} --state "$state" \
            "$DIR/original" "$mnt" 2>"$RES/prepare.log"; then
            log "timing $NAME: mount --prepare failed (see $RES/prepare.log)"
            return
        fi
    fi
    for i in $(seq "$TIME_REPS"); do
        o=$(time_side original "$sroot" "$sargs" "$sdesel")
        git -C "$DIR/original" checkout -q -- . && git -C "$DIR/original" clean -qfdx
        t0=$(date +%s%N)
        # shellcheck disable=SC2086
        if ! "$BIN" mount --seed "$SEED" --python "$PY" ${VIEW_OPTS:-} --state "$state" \
            "$DIR/original" "$mnt" 2>"$RES/mount.log"; then
            log "timing $NAME: mount failed (see $RES/mount.log)"
            return
        fi
        t1=$(date +%s%N)
        m=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", (b - a) / 1e9 }')
        v=$(time_side mnt "$vroot" "$vargs" "$vdesel")
        "$BIN" unmount "$mnt"
        git -C "$DIR/original" checkout -q -- . && git -C "$DIR/original" clean -qfdx
        orig+=("$o") view+=("$v") mounts+=("$m")
        log "timing $NAME round $i: original $o s, mounted view $v s (mount $m s)"
    done
    printf '%s\t%s\t%s\t%s\t%s\n' "$NAME" "${orig[*]}" "${view[*]}" "${mounts[*]}" \
        "${CORPUS_TIME_PREPARED:+prepared}" >>"$WORK/timing.tsv"
    log "timing $NAME: original ${orig[*]} s; mounted view ${view[*]} s; mounts ${mounts[*]} s"
}

# unmount_view: --mounted, the view of the last project taken down (also on exit)
unmount_view() {
    if [ -n "${DIR:-}" ] && mountpoint -q "$DIR/view" 2>/dev/null; then
        "$BIN" unmount "$DIR/view" || umount -l "$DIR/view"
    fi
}

# mount_view: --mounted, the view of a copy of the original mounted at $DIR/view
mount_view() {
    rm -rf "$DIR/base" "$DIR/state"
    cp -a "$DIR/original" "$DIR/base"
    mkdir -p "$DIR/view"
    # shellcheck disable=SC2086
    if ! "$BIN" mount --seed "$SEED" --python "$PY" ${VIEW_OPTS:-} --state "$DIR/state" \
        "$DIR/base" "$DIR/view" 2>"$RES/mount.log"; then
        failed "$NAME" "$1" "$2" mount "$RES/mount.log"
        return 1
    fi
}

# install_check SIDE: `pip install -e .` of a copy of that side in a throwaway venv
install_check() {
    local side=$1 tmp rc names
    tmp=$(mktemp -d "$WORK/install.XXXXXX")
    cp -a "$DIR/$side" "$tmp/tree"
    "$PYTHON" -m venv "$tmp/venv" >/dev/null 2>&1
    (cd "$tmp/tree" && timeout "$INSTALL_TIMEOUT" "$tmp/venv/bin/python" -m pip install -e .) \
        >"$DIR/results/install-$side.log" 2>&1
    rc=$?
    if [ $rc -eq 0 ]; then
        names=$IMPORTS
        [ "$side" = view ] && names=$(printf '%s' "$IMPORTS" | translate view "$NAME")
        # the editable install must make the (view's) packages importable from elsewhere
        (cd "$tmp" && "$tmp/venv/bin/python" -c \
            "import importlib, sys; [importlib.import_module(n) for n in sys.argv[1:]]" $names) \
            >>"$DIR/results/install-$side.log" 2>&1
        rc=$?
        [ $rc -ne 0 ] && rc=100
    fi
    echo "$rc" >"$DIR/results/install-$side.rc"
    rm -rf "$tmp"
    log "pip install -e . ($side): exit $rc"
}

run_project() {
    local set=$1 name=$2 version=$3 runner=$4 root=$5 imports=$6 testargs=$7 deps=$8 deselect=$9
    local metadata=${10}
    NAME=$name RUNNER=$runner IMPORTS=$imports
    VIEW_OPTS=${CORPUS_VIEW_OPTS:-}
    if [ -n "${CORPUS_FREEZE_DIR:-}" ] && [ -f "$CORPUS_FREEZE_DIR/$name.txt" ]; then
        VIEW_OPTS="$VIEW_OPTS --freeze $(cd "$CORPUS_FREEZE_DIR" && pwd)/$name.txt"
    fi
    DIR="$WORK/$name"
    RES="$DIR/results"
    local cache="$WORK/cache/$name-$version"
    log "== $name $version ($set)"
    if [ -n "$TIME_REPS" ]; then
        # timing only: the outcomes of the last comparison stay in results/
        RES="$DIR/timing"
        rm -rf "$DIR/original" "$RES"
    else
        unmount_view
        rm -rf "$DIR/original" "$DIR/view" "$DIR/results" "$DIR/base" "$DIR/state"
    fi
    mkdir -p "$DIR/original" "$DIR/results" "$RES"

    # 1. sdist -> original (a git repository, so that any change the tests make shows up)
    if ! ls "$cache"/*.tar.gz >/dev/null 2>&1; then
        mkdir -p "$cache"
        if ! "$PYTHON" -m pip download -q --no-deps --no-binary :all: "$name==$version" -d "$cache" \
            >"$DIR/results/download.log" 2>&1 &&
            # an older pip can save the sdist and then fail on a dependency specifier of
            # its metadata that it cannot parse (tinydb's); the file is what is needed
            ! ls "$cache"/*.tar.gz >/dev/null 2>&1; then
            rm -rf "$cache"
            failed "$name" "$version" "$set" download "$DIR/results/download.log"
            return
        fi
    fi
    local sdist
    sdist=$(ls "$cache"/*.tar.gz | head -n1)
    if ! { tar xzf "$sdist" -C "$DIR/original" --strip-components=1 &&
        commit_tree "$DIR/original" "$name $version sdist"; } >"$DIR/results/unpack.log" 2>&1; then
        failed "$name" "$version" "$set" unpack "$DIR/results/unpack.log"
        return
    fi

    # 2. venv with the test dependencies (never the project itself), keyed by the pinned list
    if [ ! -f "$DIR/venv/.deps" ] || [ "$(cat "$DIR/venv/.deps")" != "$deps" ]; then
        rm -rf "$DIR/venv"
        # shellcheck disable=SC2086
        if ! { "$PYTHON" -m venv "$DIR/venv" && "$DIR/venv/bin/python" -m pip install -q $deps; } \
            >"$DIR/results/venv.log" 2>&1; then
            rm -rf "$DIR/venv"
            failed "$name" "$version" "$set" venv "$DIR/results/venv.log"
            return
        fi
        printf '%s' "$deps" >"$DIR/venv/.deps"
    fi
    PY="$DIR/venv/bin/python"
    local site d
    site=$("$PY" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
    # The records an earlier run wrote (below, and the view's in view_dist_info) go first:
    # pip writes a RECORD into every record it installs, these have none. A view's name left
    # from another build would be one more outside name for the environment scan.
    for d in "$site"/*.dist-info; do
        [ -d "$d" ] && [ ! -e "$d/RECORD" ] && rm -rf "$d"
    done
    if [ "$metadata" = yes ]; then
        mkdir -p "$site/$name-$version.dist-info"
        printf 'Metadata-Version: 2.1\nName: %s\nVersion: %s\n' "$name" "$version" \
            >"$site/$name-$version.dist-info/METADATA"
    fi

    if [ -n "$NATIVE_ONLY" ]; then
        run_side original "$root" "$testargs" "$deselect"
        return
    fi
    if [ -n "$TIME_REPS" ]; then
        [ "$metadata" = yes ] && view_dist_info "$name" "$version" "$site"
        time_project "$root" "$testargs" "$deselect"
        return
    fi

    # 3. the view, made a git repository too (or mounted, with its shadow `.git`)
    # shellcheck disable=SC2086
    if [ -n "$MOUNTED" ]; then
        mount_view "$version" "$set" || return
    elif ! "$BIN" export --seed "$SEED" --python "$PY" ${VIEW_OPTS:-} "$DIR/original" "$DIR/view" \
        2>"$DIR/results/export.log"; then
        failed "$name" "$version" "$set" export "$DIR/results/export.log"
        return
    else
        commit_tree "$DIR/view" view >>"$DIR/results/export.log" 2>&1
    fi
    [ "$metadata" = yes ] && view_dist_info "$name" "$version" "$site"

    # 4./5. the same test command on both sides; view paths and labels are translated
    local vroot vargs vdeselect
    vroot=$(printf '%s' "$root" | translate view "$name")
    vargs=$(printf '%s' "$testargs" | translate view "$name")
    vdeselect=$(printf '%s' "$deselect" | translate view "$name")
    printf 'root=%s\nargs=%s\ndeselect=%s\n' "$vroot" "$vargs" "$vdeselect" >"$DIR/results/view-args.txt"
    run_side original "$root" "$testargs" "$deselect"
    run_side view "$vroot" "$vargs" "$vdeselect"

    # what the test run changed in each tree; then the original is put back as it was, since
    # every later translation rebuilds the map from the original tree, and files the tests
    # left there (.coverage, generated catalogs) would give another map than the view's
    git -C "$DIR/original" status --porcelain --untracked-files=all >"$DIR/results/original-status.txt"
    git -C "$DIR/view" status --porcelain --untracked-files=all >"$DIR/results/view-status.txt"
    git -C "$DIR/original" checkout -q -- . && git -C "$DIR/original" clean -qfdx
    translate original "$name" <"$DIR/results/view-status.txt" >"$DIR/results/view-status-translated.txt"

    # 6. the project's own editable install, in the view (and in the original when it fails)
    if [ -z "${CORPUS_SKIP_INSTALL:-}" ]; then
        install_check view
        [ "$(cat "$DIR/results/install-view.rc")" != 0 ] && install_check original
    fi

    # 7. compare and measure
    CORPUS_VIEW_OPTS="$VIEW_OPTS" "$PYTHON" "$ROOT/scripts/corpus_report.py" project --bin "$BIN" \
        --seed "$SEED" --python "$PY" --name "$name" --version "$version" --set "$set" \
        --runner "$runner" --root "$root" --imports "$imports" --dir "$DIR" \
        2>"$DIR/results/report.log" || failed "$name" "$version" "$set" report "$DIR/results/report.log"
    if [ -n "$MOUNTED" ]; then
        unmount_view
        rm -rf "$DIR/base" "$DIR/state"
    fi
}

trap unmount_view EXIT

ran=()
for p in "${PROJECTS[@]}"; do
    IFS='|' read -r pset name version runner root imports testargs deps deselect metadata <<<"$p"
    if [ -n "$ONLY" ]; then
        [ "$ONLY" != "$name" ] && continue
    elif [ "$SET" != all ] && [ "$SET" != "$pset" ]; then
        continue
    fi
    run_project "$pset" "$name" "$version" "$runner" "$root" "$imports" "$testargs" "$deps" "$deselect" "$metadata"
    ran+=("$name")
done
if [ ${#ran[@]} -eq 0 ]; then
    echo "corpus.sh: no project named $ONLY" >&2
    exit 2
fi
if [ -n "$TIME_REPS" ]; then
    "$PYTHON" "$ROOT/scripts/corpus_report.py" timing "$WORK/timing.tsv"
else
    "$PYTHON" "$ROOT/scripts/corpus_report.py" table --work "$WORK" "${ran[@]}"
fi
