"""한글's equation script as LaTeX: the reader's one translator (``_native.equation_latex``, the
same that fills every equation block's ``latex``), and the corpus check that KaTeX reads what it
gives (``benches/equations_katex.py``). The hand-checked formulas from the corpus's exam paper
are the translator's unit tests (``rhwp_core/reader/src/common/equation.rs``)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import rhwp_core
from rhwp_core import _native

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "benches"))
import equations_katex  # noqa: E402 -- the bench's measure, shared with this test


@pytest.mark.parametrize(
    ("script", "latex"),
    [
        ("a over b", r"\frac{a}{b}"),
        ("{a+b} over {sqrt {x^2 + 1}}", r"\frac{a + b}{\sqrt{x^{2} + 1}}"),
        ("root 3 of {x+1}", r"\sqrt[3]{x + 1}"),
        ("sum from{i=1} to n a_i", r"\sum_{i = 1}^{n} a_{i}"),
        ("LEFT { x RIGHT .", r"\left\{ x \right."),
        ("pmatrix{a # b}", r"\begin{pmatrix} a \\ b \end{pmatrix}"),
        ('"속도" = 거리 over 시간', r"\text{속도} = \frac{\text{거리}}{\text{시간}}"),
    ],
)
def test_native_translator(script: str, latex: str) -> None:
    assert _native.equation_latex(script) == latex


@pytest.mark.parametrize(
    "script",
    ["", "   ", "{a", "a}", "x over", "over x", "sqrt", '"open', "LEFT ( x RIGHT", "matrix a", "{a # b} over c"],
)
def test_what_does_not_translate(script: str) -> None:
    assert _native.equation_latex(script) is None


def test_hostile_scripts() -> None:
    assert _native.equation_latex("{" * 500 + "x" + "}" * 500) is None  # deeper than the translator goes
    latex = _native.equation_latex("<script>alert(1)</script>")
    assert latex is not None and "<" not in latex and ">" not in latex


PIECES = st.sampled_from([*'{}^_#&~`"<>()|x1 ', "over", "sqrt", "LEFT", "RIGHT", "matrix", "root", "of", "rm", "bar"])


@settings(max_examples=300, deadline=None)
@given(st.lists(PIECES, max_size=40).map(" ".join))
def test_never_raises_and_keeps_letters(script: str) -> None:
    latex = _native.equation_latex(script)
    if latex is not None:
        assert ("x" in script) <= ("x" in latex)
        assert "<" not in latex and ">" not in latex


def test_ir_carries_script_and_latex(fixtures_dir: Path) -> None:
    path = fixtures_dir / "hwpx" / "hwpxlib-SimpleEquation.hwpx"
    if not path.exists():
        pytest.skip(f"{path.name} is not among the fixtures")
    [equation] = equations_katex.document_equations(rhwp_core.parse(path).to_ir())
    assert equation.script == '{"123"} over {123 sqrt {3466}} sum _{34} ^{12}'
    assert equation.latex == r"\frac{\text{123}}{123 \sqrt{3466}} \sum_{34}^{12}"
    assert equation.model_dump()["latex"] == equation.latex


def test_corpus_equations_katex(corpus_dir: Path) -> None:
    """Issue 35's acceptance: >= 95 % of the corpus's equation blocks carry LaTeX KaTeX reads."""
    module = equations_katex.katex_module(None)
    if module is None:
        pytest.skip("needs node and katex: npm install --prefix /tmp/katex katex")
    rows = equations_katex.measure(corpus_dir, module)
    blocks = sum(r.blocks for r in rows)
    parsed = sum(r.parsed for r in rows)
    assert blocks >= 1000, rows
    problems = [p for r in rows for p in r.problems if p.startswith("KaTeX")]
    assert not problems, problems[:20]
    assert parsed / blocks >= equations_katex.TARGET, [(r.document, r.blocks, r.parsed) for r in rows]


# The translator's vocabulary, a word of each kind, as 한글 spells it: KaTeX must know every command
# the translator writes for them.
VOCABULARY = """
alpha BETA Gamma varphi omicron Omega sin arccos coth lcm mod lim Lim larrow RARROW udarrow vert VERT
le ge ne in ni pm mp times div plusminus cdot circ bullet ast star leq GEQ neq lll ggg approx sim simeq
cong equiv asymp doteq propto subset supset superset subseteq supseteq sqsubset sqsupset sqsubseteq
sqsupseteq notin owns prec succ forall exist lnot wedge land vee lor xor partial nabla emptyset
therefore BECAUSE vdash models dagger ddagger bigcirc diamond cap cup smallinter smallunion sqcap sqcup
uplus oplus otimes odot ominus odiv inf aleph hbar imath jmath ell liter wp imag reimage ohm mho angstrom
cdots ldots vdots ddots triangle triangled angle msangle sangle rtangle bot top perp parallel laplace
centigrade fahrenheit lslant rslant att hund thou well base lbrace rbrace langle rangle lceil rceil
lfloor rfloor nwarrow nearrow swarrow searrow mapsto hookleft hookright dsum identical
sum smallsum prod coprod amalg int dint tint oint odint otint union inter bigsqcup bigsqcap biguplus
bigwedge bigvee bigoplus bigotimes bigodot
""".split()
ACCENTED = "bar vec hat tilde dot ddot acute grave check under dyad arch not box".split()


def test_vocabulary_is_latex_katex_reads() -> None:
    module = equations_katex.katex_module(None)
    if module is None:
        pytest.skip("needs node and katex: npm install --prefix /tmp/katex katex")
    scripts = [f"x {word} y" for word in VOCABULARY]
    scripts += [f"{accent} x + {accent} {{xy}}" for accent in ACCENTED]
    scripts += [f"{env}{{a & b # c & d}}" for env in ("matrix", "pmatrix", "bmatrix", "dmatrix", "cases", "eqalign")]
    scripts += [f"{pile}{{a # b}}" for pile in ("pile", "lpile", "rpile")]
    scripts += ['"a_b {c} 100% ^ ~ \\\\ < > & # $"', "cases{a & b & c # d}", "LEFT lceil x RIGHT rfloor", "a atop b"]
    latex = [_native.equation_latex(script) for script in scripts]
    assert None not in latex, [s for s, x in zip(scripts, latex, strict=True) if x is None]
    errors = equations_katex.katex_errors([x or "" for x in latex], module)
    assert errors == [None] * len(scripts), [(s, e) for s, e in zip(scripts, errors, strict=True) if e]
