"""A best-effort converter from HWP equation script to LaTeX.

HWP's equation editor stores a script such as ``{a+b} over {sqrt {x^2 + 1}}`` or
``LEFT ( matrix{1 & 0 # 0 & 1} RIGHT )``. This covers the common syntax: fractions
(``over``, ``atop``), roots (``sqrt``, ``root n of x``), scripts (``^``, ``_``, ``sup``,
``sub``), big operators, Greek letters, relations and arrows, ``LEFT``/``RIGHT`` delimiters,
matrices (``matrix``, ``pmatrix``, ``bmatrix``, ``dmatrix``), ``cases``, ``pile``, ``eqalign``,
accents, font switches and quoted text. What it does not know it keeps as written, so the
result may be imperfect LaTeX but never loses the script's symbols. It never raises: a script
it cannot follow (e.g. absurdly deep braces) comes back as escaped text.

The views show the LaTeX and keep the original script beside it, so no word is lost.
"""

from __future__ import annotations

import re

__all__ = ["to_latex"]

_MAX_DEPTH = 64

_TOKEN = re.compile(
    r'"(?P<quoted>[^"]*)"?'  # quoted text (an unterminated quote runs to the end)
    r"|(?P<word>[A-Za-z]+)"
    r"|(?P<number>[0-9]+(?:\.[0-9]+)?)"
    r"|(?P<op><->|->|<-|<=|>=|!=|==|\+-|-\+|=>)"
    r"|(?P<space>\s+)"
    r"|(?P<other>[\x21-\x7e])"  # one ASCII punctuation character
    r"|(?P<text>[^\x00-\x7f]+)",  # Hangul and other non-ASCII text
)

_GREEK = {
    name: "\\" + name
    for name in (
        "alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu nu xi omicron pi rho sigma tau upsilon"
        " phi chi psi omega"
    ).split()
}
_GREEK["omicron"] = "o"
_UPPER_GREEK_LATEX = {"gamma", "delta", "theta", "lambda", "xi", "pi", "sigma", "upsilon", "phi", "psi", "omega"}
_UPPER_GREEK_LATIN = {
    "alpha": "A", "beta": "B", "epsilon": "E", "zeta": "Z", "eta": "H", "iota": "I", "kappa": "K",
    "mu": "M", "nu": "N", "omicron": "O", "rho": "P", "tau": "T", "chi": "X",
}  # fmt: skip

# Words that become a LaTeX command or symbol (looked up lower-cased unless listed as case-sensitive).
_SYMBOLS = {
    "times": r"\times", "div": r"\div", "pm": r"\pm", "mp": r"\mp", "cdot": r"\cdot", "circ": r"\circ",
    "bullet": r"\bullet", "le": r"\le", "leq": r"\le", "ge": r"\ge", "geq": r"\ge", "ne": r"\ne",
    "neq": r"\ne", "approx": r"\approx", "sim": r"\sim", "simeq": r"\simeq", "equiv": r"\equiv",
    "inf": r"\infty", "infinity": r"\infty", "partial": r"\partial", "nabla": r"\nabla",
    "therefore": r"\therefore", "because": r"\because", "forall": r"\forall", "exist": r"\exists",
    "exists": r"\exists", "in": r"\in", "notin": r"\notin", "ni": r"\ni", "owns": r"\ni", "subset": r"\subset",
    "supset": r"\supset", "subseteq": r"\subseteq", "supseteq": r"\supseteq", "cap": r"\cap", "cup": r"\cup",
    "emptyset": r"\emptyset", "vee": r"\vee", "wedge": r"\wedge", "lnot": r"\neg", "neg": r"\neg",
    "uparrow": r"\uparrow", "downarrow": r"\downarrow", "prime": "'", "angle": r"\angle",
    "deg": r"^{\circ}", "cdots": r"\cdots", "ldots": r"\ldots", "vdots": r"\vdots", "ddots": r"\ddots",
    "dots": r"\dots", "perp": r"\perp", "parallel": r"\parallel", "propto": r"\propto",
    "triangle": r"\triangle", "hbar": r"\hbar", "ell": r"\ell", "aleph": r"\aleph", "mod": r"\bmod",
    "sum": r"\sum", "prod": r"\prod", "coprod": r"\coprod", "int": r"\int", "iint": r"\iint",
    "iiint": r"\iiint", "oint": r"\oint", "bigcap": r"\bigcap", "bigcup": r"\bigcup", "lim": r"\lim",
    "sin": r"\sin", "cos": r"\cos", "tan": r"\tan", "cot": r"\cot", "sec": r"\sec", "csc": r"\csc",
    "arcsin": r"\arcsin", "arccos": r"\arccos", "arctan": r"\arctan", "sinh": r"\sinh", "cosh": r"\cosh",
    "tanh": r"\tanh", "log": r"\log", "ln": r"\ln", "lg": r"\lg", "exp": r"\exp", "det": r"\det",
    "max": r"\max", "min": r"\min", "gcd": r"\gcd", "sup": "", "sub": "",
    "lbrace": r"\{", "rbrace": r"\}", "langle": r"\langle", "rangle": r"\rangle",
    "rarrow": r"\rightarrow", "larrow": r"\leftarrow", "lrarrow": r"\leftrightarrow",
}  # fmt: skip
# Upper-case arrows are double arrows in HWP.
_CASED = {"RARROW": r"\Rightarrow", "LARROW": r"\Leftarrow", "LRARROW": r"\Leftrightarrow"}
_OPERATORS = {
    "<->": r"\leftrightarrow", "->": r"\rightarrow", "<-": r"\leftarrow", "<=": r"\le", ">=": r"\ge",
    "!=": r"\ne", "==": r"\equiv", "+-": r"\pm", "-+": r"\mp", "=>": r"\Rightarrow",
    "<": r"\lt", ">": r"\gt", "{": r"\{", "}": r"\}", "\\": r"\backslash", "%": r"\%", "$": r"\$",
    "`": r"\,", "~": r"\ ", "&": "&", "#": r"\\", "'": "'",
}  # fmt: skip
_ACCENTS = {
    "bar": r"\overline", "overline": r"\overline", "vec": r"\vec", "hat": r"\hat", "tilde": r"\tilde",
    "dot": r"\dot", "ddot": r"\ddot", "acute": r"\acute", "grave": r"\grave", "check": r"\check",
    "under": r"\underline", "underline": r"\underline", "dyad": r"\overleftrightarrow", "arch": r"\overparen",
    "rm": r"\mathrm", "it": r"\mathit", "bold": r"\mathbf",
}  # fmt: skip
_ENVIRONMENTS = {
    "matrix": "matrix", "pmatrix": "pmatrix", "bmatrix": "bmatrix", "dmatrix": "vmatrix", "cases": "cases",
    "pile": "matrix", "lpile": "matrix", "rpile": "matrix", "eqalign": "aligned",
}  # fmt: skip
_DELIMITERS = {
    "(": "(", ")": ")", "[": "[", "]": "]", "{": r"\{", "}": r"\}", "|": "|", "||": r"\|", "<": r"\langle",
    ">": r"\rangle", ".": ".", "lbrace": r"\{", "rbrace": r"\}", "langle": r"\langle", "rangle": r"\rangle",
}  # fmt: skip
_TEXT_ESCAPES = str.maketrans(
    {
        "\\": r"\textbackslash{}",
        "{": r"\{",
        "}": r"\}",
        "$": r"\$",
        "&": r"\&",
        "#": r"\#",
        "%": r"\%",
        "_": r"\_",
        "^": r"\^{}",
        "~": r"\~{}",
        "<": r"\textless{}",
        ">": r"\textgreater{}",
    }
)


class _TooDeep(Exception):
    pass


# Each alternative of _TOKEN is one named group: the index of the group that matched names the kind.
_KIND_BY_GROUP = {index: name for name, index in _TOKEN.groupindex.items()}


def _tokenize(script: str) -> list[tuple[str, str]]:
    kinds = _KIND_BY_GROUP
    tokens: list[tuple[str, str]] = []
    for match in _TOKEN.finditer(script):
        index = match.lastindex or 0
        kind = kinds.get(index, "other")
        if kind != "space":
            tokens.append((kind, (match.group(index) or "") if index else ""))
    return tokens


class _Parser:
    def __init__(self, tokens: list[tuple[str, str]]) -> None:
        self.tokens = tokens
        self.count = len(tokens)
        self.pos = 0
        self.environments = 0  # how many matrix-like environments we are inside
        self.aligns_at_top = False  # `#` or `&` outside any environment: wrap the result in `aligned`

    def peek(self) -> tuple[str, str] | None:
        return self.tokens[self.pos] if self.pos < self.count else None

    def take(self) -> tuple[str, str] | None:
        if self.pos < self.count:
            self.pos += 1
            return self.tokens[self.pos - 1]
        return None

    def sequence(self, depth: int, stop_at_right: bool = False) -> str:
        """Atoms until a closing brace (consumed by the caller), ``RIGHT`` or the end."""
        if depth > _MAX_DEPTH:
            raise _TooDeep
        atoms: list[str] = []
        groups: list[str | None] = []  # the inside of an atom that is a plain `{...}` group
        while (token := self.peek()) is not None:
            kind, value = token
            if kind == "other" and value == "}":
                break
            if stop_at_right and kind == "word" and value.lower() == "right":
                break
            lowered = value.lower() if kind == "word" else ""
            if lowered in ("over", "atop") and atoms:
                self.pos += 1
                numerator, inside = atoms.pop(), groups.pop()
                denominator = self.argument(depth)
                command = r"\frac" if lowered == "over" else r"\genfrac{}{}{0pt}{}"
                atoms.append(f"{command}{{{numerator if inside is None else inside}}}{{{denominator}}}")
                groups.append(None)
            elif (lowered in ("sup", "sub", "from", "to") or (kind == "other" and value in "^_")) and atoms:
                # `from`/`to` are the limits of big operators (`sum from {i=1} to n`).
                self.pos += 1
                mark = "^" if lowered in ("sup", "to") or value == "^" else "_"
                atoms[-1] += f"{mark}{{{self.argument(depth)}}}"
                groups[-1] = None
            elif kind == "other" and value == "{":
                self.pos += 1
                inside = self.sequence(depth + 1)
                self.take()  # the closing brace, when there is one
                atoms.append("{" + inside + "}")
                groups.append(inside)
            else:
                atoms.append(self.atom(depth))
                groups.append(None)
        return " ".join(atom for atom in atoms if atom)

    def argument(self, depth: int) -> str:
        """The operand of a command: a braced group (without its braces) or a single atom."""
        if self.peek() == ("other", "{"):
            self.pos += 1
            inner = self.sequence(depth + 1)
            self.take()
            return inner
        return self.atom(depth + 1)

    def atom(self, depth: int) -> str:
        token = self.take()
        if token is None:
            return ""
        kind, value = token
        if kind == "other" and value == "{":
            inner = self.sequence(depth + 1)
            self.take()  # the closing brace, when there is one
            return "{" + inner + "}"
        if kind == "word":
            return self.word(value, depth)
        if kind == "number":
            return value
        if kind == "quoted":
            return r"\text{" + value.translate(_TEXT_ESCAPES) + "}"
        if kind == "text":
            return r"\text{" + value.translate(_TEXT_ESCAPES) + "}"
        if kind == "other" and value in "#&" and not self.environments:
            self.aligns_at_top = True
        if kind == "op" or value in _OPERATORS:
            return _OPERATORS.get(value, value)
        return value

    def word(self, word: str, depth: int) -> str:
        lowered = word.lower()
        if word in _CASED:
            return _CASED[word]
        if lowered in _GREEK:
            if word == lowered:
                return _GREEK[lowered]
            return "\\" + lowered.capitalize() if lowered in _UPPER_GREEK_LATEX else _UPPER_GREEK_LATIN[lowered]
        if lowered == "sqrt":
            return r"\sqrt{" + self.argument(depth) + "}"
        if lowered == "root":
            index = self.argument(depth)
            token = self.peek()
            if token is not None and token[0] == "word" and token[1].lower() == "of":
                self.pos += 1
            return r"\sqrt[" + index + "]{" + self.argument(depth) + "}"
        if lowered in _ACCENTS:
            return _ACCENTS[lowered] + "{" + self.argument(depth) + "}"
        if lowered == "left":
            return self.delimited(depth)
        if lowered in _ENVIRONMENTS:
            return self.environment(_ENVIRONMENTS[lowered], depth)
        if lowered in _SYMBOLS:
            return _SYMBOLS[lowered]
        return word

    def delimiter(self) -> str:
        """The delimiter after LEFT/RIGHT; anything else is left in place (and `.`, no delimiter, used)."""
        token = self.peek()
        if token is None:
            return "."
        shown = _DELIMITERS.get(token[1].lower() if token[0] == "word" else token[1])
        if shown is None:
            return "."
        self.pos += 1
        return shown

    def delimited(self, depth: int) -> str:
        opening = self.delimiter()
        inner = self.sequence(depth + 1, stop_at_right=True)
        token = self.peek()
        closing = "."
        if token is not None and token[0] == "word" and token[1].lower() == "right":
            self.pos += 1
            closing = self.delimiter()
        return rf"\left{opening} {inner} \right{closing}"

    def environment(self, name: str, depth: int) -> str:
        token = self.peek()
        if token is None or token != ("other", "{"):
            return name
        self.pos += 1
        self.environments += 1
        body = self.sequence(depth + 1)
        self.environments -= 1
        self.take()
        return rf"\begin{{{name}}} {body} \end{{{name}}}"


def to_latex(script: str) -> str:
    """LaTeX for an HWP equation script (best effort; never raises)."""
    tokens = _tokenize(script)
    parser = _Parser(tokens)
    try:
        parts: list[str] = []
        while parser.peek() is not None:
            parts.append(parser.sequence(0))
            if parser.take() is not None:  # a stray closing brace at top level
                parts.append(r"\}")
        latex = " ".join(part for part in parts if part)
    except (_TooDeep, RecursionError):
        return r"\text{" + " ".join(script.split()).translate(_TEXT_ESCAPES) + "}"
    if parser.aligns_at_top:
        latex = rf"\begin{{aligned}} {latex} \end{{aligned}}"
    return latex
