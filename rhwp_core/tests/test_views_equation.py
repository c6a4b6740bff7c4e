"""HWP equation script to LaTeX (best effort, never raises)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from oracle_views.equation import to_latex


@pytest.mark.parametrize(
    ("script", "latex"),
    [
        ("a over b", r"\frac{a}{b}"),
        ("{a+b} over {sqrt {x^2 + 1}}", r"\frac{a + b}{\sqrt{x^{2} + 1}}"),
        ("{a}^2 over b", r"\frac{{a}^{2}}{b}"),
        ("y`prime", r"y \, '"),
        ("root 3 of {x+1}", r"\sqrt[3]{x + 1}"),
        ("x_1 sup 2", r"x_{1}^{2}"),
        ("sum from{i=1} to n a_i", r"\sum_{i = 1}^{n} a_{i}"),
        ("int _0 ^inf e^{-x} dx", r"\int_{0}^{\infty} e^{- x} dx"),
        ("lim _{x -> 0} {sin x} over x", r"\lim_{x \rightarrow 0} \frac{\sin x}{x}"),
        ("alpha + Beta + GAMMA + omega", r"\alpha + B + \Gamma + \omega"),
        ("a TIMES b cdot c", r"a \times b \cdot c"),
        ("a <= b != c +- d", r"a \le b \ne c \pm d"),
        ("A RARROW B rarrow C", r"A \Rightarrow B \rightarrow C"),
        ("LEFT ( x RIGHT )", r"\left( x \right)"),
        ("LEFT { x RIGHT .", r"\left\{ x \right."),
        ("LEFT | x RIGHT |", r"\left| x \right|"),
        ("matrix{1 & 0 # 0 & 1}", r"\begin{matrix} 1 & 0 \\ 0 & 1 \end{matrix}"),
        ("pmatrix{a # b}", r"\begin{pmatrix} a \\ b \end{pmatrix}"),
        ("dmatrix{a & b # c & d}", r"\begin{vmatrix} a & b \\ c & d \end{vmatrix}"),
        ("f(x) = cases{1 & x > 0 # 0 & x <= 0}", r"f ( x ) = \begin{cases} 1 & x \gt 0 \\ 0 & x \le 0 \end{cases}"),
        ("a = b # c = d", r"\begin{aligned} a = b \\ c = d \end{aligned}"),
        ("bar x + vec {AB} + hat y", r"\overline{x} + \vec{AB} + \hat{y}"),
        ("rm {km} ~ 3`m", r"\mathrm{km} \  3 \, m"),
        ('"속도" = 거리 over 시간', r"\text{속도} = \frac{\text{거리}}{\text{시간}}"),
        ("90 deg", r"90 ^{\circ}"),
    ],
)
def test_common_syntax(script: str, latex: str) -> None:
    assert to_latex(script) == latex


def test_hostile_and_broken_scripts() -> None:
    assert "<" not in to_latex("<script>alert(1)</script>")
    assert to_latex("") == ""
    assert to_latex("}} a {") == r"\} \} a {}"
    assert to_latex("x over") == r"\frac{x}{}"
    assert to_latex("LEFT (") == r"\left(  \right."
    assert to_latex('"unterminated <b> $x$') == r"\text{unterminated \textless{}b\textgreater{} \$x\$}"
    deep = to_latex("{" * 500 + "x" + "}" * 500)
    assert deep.startswith(r"\text{") and "x" in deep


PIECES = st.sampled_from([*'{}^_#&~`"<>()|x1 ', "over", "sqrt", "LEFT", "RIGHT", "matrix", "root", "of"])


@settings(max_examples=300, deadline=None)
@given(st.lists(PIECES, max_size=40).map(" ".join))
def test_never_raises_and_keeps_letters(script: str) -> None:
    latex = to_latex(script)
    assert isinstance(latex, str)
    assert ("x" in script) <= ("x" in latex)
    assert "<" not in latex and ">" not in latex
