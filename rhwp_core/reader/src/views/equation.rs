//! HWP equation script to LaTeX, best effort (`views/equation.py`, which documents the syntax).
//!
//! The same tokens, the same recursive reading and the same tables, so both give the same LaTeX.
//! It never fails: a script nested too deep comes back as escaped text.

use crate::common::chars::{is_space, squeeze};

#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    Quoted,
    Word,
    Number,
    Op,
    Other,
    Text,
}

type Token<'a> = (Kind, &'a str);

const OPS: [&str; 10] = ["<->", "->", "<-", "<=", ">=", "!=", "==", "+-", "-+", "=>"];

fn tokenize(script: &str) -> Vec<Token<'_>> {
    let bytes = script.as_bytes();
    let mut tokens = Vec::new();
    let mut i = 0;
    while i < script.len() {
        let rest = &script[i..];
        let c = rest.chars().next().unwrap_or(' ');
        let b = bytes[i];
        if b == b'"' {
            // An unterminated quote runs to the end.
            let inner = &rest[1..];
            let end = inner.find('"').unwrap_or(inner.len());
            tokens.push((Kind::Quoted, &inner[..end]));
            i += 1 + end + usize::from(end < inner.len());
        } else if b.is_ascii_alphabetic() {
            let n = rest.bytes().take_while(u8::is_ascii_alphabetic).count();
            tokens.push((Kind::Word, &rest[..n]));
            i += n;
        } else if b.is_ascii_digit() {
            let mut n = rest.bytes().take_while(u8::is_ascii_digit).count();
            let after = &bytes[i + n..];
            if after.len() >= 2 && after[0] == b'.' && after[1].is_ascii_digit() {
                n += 1 + after[1..].iter().take_while(|b| b.is_ascii_digit()).count();
            }
            tokens.push((Kind::Number, &rest[..n]));
            i += n;
        } else if let Some(op) = OPS.iter().find(|op| rest.starts_with(**op)) {
            tokens.push((Kind::Op, &rest[..op.len()]));
            i += op.len();
        } else if is_space(c) {
            i += rest.find(|c: char| !is_space(c)).unwrap_or(rest.len());
        } else if (0x21..=0x7e).contains(&b) {
            tokens.push((Kind::Other, &rest[..1]));
            i += 1;
        } else if !c.is_ascii() {
            let n = rest.find(|c: char| c.is_ascii()).unwrap_or(rest.len());
            tokens.push((Kind::Text, &rest[..n]));
            i += n;
        } else {
            i += 1; // an ASCII control character: no token
        }
    }
    tokens
}

const MAX_DEPTH: usize = 64;
/// The Python parser's own limit is its recursion limit (a RecursionError gives the same
/// fallback); this bounds the native stack where `sqrt sqrt sqrt ...` nests without braces.
const MAX_ATOM_DEPTH: usize = 300;

struct TooDeep;

fn greek(lowered: &str) -> Option<&'static str> {
    const NAMES: [&str; 24] = [
        "alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta", "theta", "iota", "kappa",
        "lambda", "mu", "nu", "xi", "omicron", "pi", "rho", "sigma", "tau", "upsilon", "phi",
        "chi", "psi", "omega",
    ];
    NAMES.iter().find(|n| **n == lowered).copied()
}

fn upper_greek_latin(lowered: &str) -> Option<&'static str> {
    Some(match lowered {
        "alpha" => "A",
        "beta" => "B",
        "epsilon" => "E",
        "zeta" => "Z",
        "eta" => "H",
        "iota" => "I",
        "kappa" => "K",
        "mu" => "M",
        "nu" => "N",
        "omicron" => "O",
        "rho" => "P",
        "tau" => "T",
        "chi" => "X",
        _ => return None,
    })
}

const UPPER_GREEK_LATEX: [&str; 11] = [
    "gamma", "delta", "theta", "lambda", "xi", "pi", "sigma", "upsilon", "phi", "psi", "omega",
];

#[rustfmt::skip]
const SYMBOLS: &[(&str, &str)] = &[
    ("times", r"\times"), ("div", r"\div"), ("pm", r"\pm"), ("mp", r"\mp"), ("cdot", r"\cdot"), ("circ", r"\circ"),
    ("bullet", r"\bullet"), ("le", r"\le"), ("leq", r"\le"), ("ge", r"\ge"), ("geq", r"\ge"), ("ne", r"\ne"),
    ("neq", r"\ne"), ("approx", r"\approx"), ("sim", r"\sim"), ("simeq", r"\simeq"), ("equiv", r"\equiv"),
    ("inf", r"\infty"), ("infinity", r"\infty"), ("partial", r"\partial"), ("nabla", r"\nabla"),
    ("therefore", r"\therefore"), ("because", r"\because"), ("forall", r"\forall"), ("exist", r"\exists"),
    ("exists", r"\exists"), ("in", r"\in"), ("notin", r"\notin"), ("ni", r"\ni"), ("owns", r"\ni"),
    ("subset", r"\subset"), ("supset", r"\supset"), ("subseteq", r"\subseteq"), ("supseteq", r"\supseteq"),
    ("cap", r"\cap"), ("cup", r"\cup"), ("emptyset", r"\emptyset"), ("vee", r"\vee"), ("wedge", r"\wedge"),
    ("lnot", r"\neg"), ("neg", r"\neg"), ("uparrow", r"\uparrow"), ("downarrow", r"\downarrow"),
    ("prime", "'"), ("angle", r"\angle"), ("deg", r"^{\circ}"), ("cdots", r"\cdots"), ("ldots", r"\ldots"),
    ("vdots", r"\vdots"), ("ddots", r"\ddots"), ("dots", r"\dots"), ("perp", r"\perp"),
    ("parallel", r"\parallel"), ("propto", r"\propto"), ("triangle", r"\triangle"), ("hbar", r"\hbar"),
    ("ell", r"\ell"), ("aleph", r"\aleph"), ("mod", r"\bmod"), ("sum", r"\sum"), ("prod", r"\prod"),
    ("coprod", r"\coprod"), ("int", r"\int"), ("iint", r"\iint"), ("iiint", r"\iiint"), ("oint", r"\oint"),
    ("bigcap", r"\bigcap"), ("bigcup", r"\bigcup"), ("lim", r"\lim"), ("sin", r"\sin"), ("cos", r"\cos"),
    ("tan", r"\tan"), ("cot", r"\cot"), ("sec", r"\sec"), ("csc", r"\csc"), ("arcsin", r"\arcsin"),
    ("arccos", r"\arccos"), ("arctan", r"\arctan"), ("sinh", r"\sinh"), ("cosh", r"\cosh"), ("tanh", r"\tanh"),
    ("log", r"\log"), ("ln", r"\ln"), ("lg", r"\lg"), ("exp", r"\exp"), ("det", r"\det"), ("max", r"\max"),
    ("min", r"\min"), ("gcd", r"\gcd"), ("sup", ""), ("sub", ""), ("lbrace", r"\{"), ("rbrace", r"\}"),
    ("langle", r"\langle"), ("rangle", r"\rangle"), ("rarrow", r"\rightarrow"), ("larrow", r"\leftarrow"),
    ("lrarrow", r"\leftrightarrow"),
];

#[rustfmt::skip]
const OPERATORS: &[(&str, &str)] = &[
    ("<->", r"\leftrightarrow"), ("->", r"\rightarrow"), ("<-", r"\leftarrow"), ("<=", r"\le"), (">=", r"\ge"),
    ("!=", r"\ne"), ("==", r"\equiv"), ("+-", r"\pm"), ("-+", r"\mp"), ("=>", r"\Rightarrow"),
    ("<", r"\lt"), (">", r"\gt"), ("{", r"\{"), ("}", r"\}"), ("\\", r"\backslash"), ("%", r"\%"), ("$", r"\$"),
    ("`", r"\,"), ("~", r"\ "), ("&", "&"), ("#", r"\\"), ("'", "'"),
];

#[rustfmt::skip]
const ACCENTS: &[(&str, &str)] = &[
    ("bar", r"\overline"), ("overline", r"\overline"), ("vec", r"\vec"), ("hat", r"\hat"), ("tilde", r"\tilde"),
    ("dot", r"\dot"), ("ddot", r"\ddot"), ("acute", r"\acute"), ("grave", r"\grave"), ("check", r"\check"),
    ("under", r"\underline"), ("underline", r"\underline"), ("dyad", r"\overleftrightarrow"),
    ("arch", r"\overparen"), ("rm", r"\mathrm"), ("it", r"\mathit"), ("bold", r"\mathbf"),
];

#[rustfmt::skip]
const ENVIRONMENTS: &[(&str, &str)] = &[
    ("matrix", "matrix"), ("pmatrix", "pmatrix"), ("bmatrix", "bmatrix"), ("dmatrix", "vmatrix"),
    ("cases", "cases"), ("pile", "matrix"), ("lpile", "matrix"), ("rpile", "matrix"), ("eqalign", "aligned"),
];

#[rustfmt::skip]
const DELIMITERS: &[(&str, &str)] = &[
    ("(", "("), (")", ")"), ("[", "["), ("]", "]"), ("{", r"\{"), ("}", r"\}"), ("|", "|"), ("||", r"\|"),
    ("<", r"\langle"), (">", r"\rangle"), (".", "."), ("lbrace", r"\{"), ("rbrace", r"\}"),
    ("langle", r"\langle"), ("rangle", r"\rangle"),
];

fn lookup(table: &[(&str, &'static str)], key: &str) -> Option<&'static str> {
    table.iter().find(|(k, _)| *k == key).map(|(_, v)| *v)
}

fn text_escaped(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '\\' => out.push_str(r"\textbackslash{}"),
            '{' => out.push_str(r"\{"),
            '}' => out.push_str(r"\}"),
            '$' => out.push_str(r"\$"),
            '&' => out.push_str(r"\&"),
            '#' => out.push_str(r"\#"),
            '%' => out.push_str(r"\%"),
            '_' => out.push_str(r"\_"),
            '^' => out.push_str(r"\^{}"),
            '~' => out.push_str(r"\~{}"),
            '<' => out.push_str(r"\textless{}"),
            '>' => out.push_str(r"\textgreater{}"),
            _ => out.push(c),
        }
    }
    out
}

struct Parser<'a> {
    tokens: Vec<Token<'a>>,
    pos: usize,
    environments: usize,
    aligns_at_top: bool,
}

type Parsed = Result<String, TooDeep>;

impl<'a> Parser<'a> {
    fn peek(&self) -> Option<Token<'a>> {
        self.tokens.get(self.pos).copied()
    }

    fn take(&mut self) -> Option<Token<'a>> {
        let token = self.peek();
        if token.is_some() {
            self.pos += 1;
        }
        token
    }

    fn sequence(&mut self, depth: usize, stop_at_right: bool) -> Parsed {
        if depth > MAX_DEPTH {
            return Err(TooDeep);
        }
        let mut atoms: Vec<String> = Vec::new();
        let mut groups: Vec<Option<String>> = Vec::new();
        while let Some((kind, value)) = self.peek() {
            if kind == Kind::Other && value == "}" {
                break;
            }
            let lowered = if kind == Kind::Word {
                value.to_ascii_lowercase()
            } else {
                String::new()
            };
            if stop_at_right && kind == Kind::Word && lowered == "right" {
                break;
            }
            if (lowered == "over" || lowered == "atop") && !atoms.is_empty() {
                self.pos += 1;
                let numerator = atoms.pop().unwrap_or_default();
                let inside = groups.pop().flatten();
                let denominator = self.argument(depth)?;
                let command = if lowered == "over" {
                    r"\frac"
                } else {
                    r"\genfrac{}{}{0pt}{}"
                };
                atoms.push(format!(
                    "{command}{{{}}}{{{denominator}}}",
                    inside.unwrap_or(numerator)
                ));
                groups.push(None);
            } else if (matches!(lowered.as_str(), "sup" | "sub" | "from" | "to")
                || (kind == Kind::Other && (value == "^" || value == "_")))
                && !atoms.is_empty()
            {
                self.pos += 1;
                let mark = if lowered == "sup" || lowered == "to" || value == "^" {
                    "^"
                } else {
                    "_"
                };
                let argument = self.argument(depth)?;
                if let Some(last) = atoms.last_mut() {
                    last.push_str(&format!("{mark}{{{argument}}}"));
                }
                if let Some(last) = groups.last_mut() {
                    *last = None;
                }
            } else if kind == Kind::Other && value == "{" {
                self.pos += 1;
                let inside = self.sequence(depth + 1, false)?;
                self.take(); // the closing brace, when there is one
                atoms.push(format!("{{{inside}}}"));
                groups.push(Some(inside));
            } else {
                atoms.push(self.atom(depth)?);
                groups.push(None);
            }
        }
        Ok(join_nonempty(&atoms))
    }

    fn argument(&mut self, depth: usize) -> Parsed {
        if self.peek() == Some((Kind::Other, "{")) {
            self.pos += 1;
            let inner = self.sequence(depth + 1, false)?;
            self.take();
            return Ok(inner);
        }
        self.atom(depth + 1)
    }

    fn atom(&mut self, depth: usize) -> Parsed {
        if depth > MAX_ATOM_DEPTH {
            return Err(TooDeep);
        }
        let Some((kind, value)) = self.take() else {
            return Ok(String::new());
        };
        match kind {
            Kind::Other if value == "{" => {
                let inner = self.sequence(depth + 1, false)?;
                self.take();
                return Ok(format!("{{{inner}}}"));
            }
            Kind::Word => return self.word(value, depth),
            Kind::Number => return Ok(value.to_owned()),
            Kind::Quoted | Kind::Text => return Ok(format!(r"\text{{{}}}", text_escaped(value))),
            _ => {}
        }
        if kind == Kind::Other && (value == "#" || value == "&") && self.environments == 0 {
            self.aligns_at_top = true;
        }
        Ok(lookup(OPERATORS, value).unwrap_or(value).to_owned())
    }

    fn word(&mut self, word: &str, depth: usize) -> Parsed {
        let cased = match word {
            "RARROW" => Some(r"\Rightarrow"),
            "LARROW" => Some(r"\Leftarrow"),
            "LRARROW" => Some(r"\Leftrightarrow"),
            _ => None,
        };
        if let Some(cased) = cased {
            return Ok(cased.to_owned());
        }
        let lowered = word.to_ascii_lowercase();
        if let Some(name) = greek(&lowered) {
            if word == lowered {
                return Ok(if name == "omicron" {
                    "o".to_owned()
                } else {
                    format!("\\{name}")
                });
            }
            if UPPER_GREEK_LATEX.contains(&name) {
                return Ok(format!(
                    "\\{}{}",
                    name[..1].to_ascii_uppercase(),
                    &name[1..]
                ));
            }
            return Ok(upper_greek_latin(name).unwrap_or_default().to_owned());
        }
        match lowered.as_str() {
            "sqrt" => return Ok(format!(r"\sqrt{{{}}}", self.argument(depth)?)),
            "root" => {
                let index = self.argument(depth)?;
                if matches!(self.peek(), Some((Kind::Word, w)) if w.eq_ignore_ascii_case("of")) {
                    self.pos += 1;
                }
                return Ok(format!(r"\sqrt[{index}]{{{}}}", self.argument(depth)?));
            }
            "left" => return self.delimited(depth),
            _ => {}
        }
        if let Some(accent) = lookup(ACCENTS, &lowered) {
            return Ok(format!("{accent}{{{}}}", self.argument(depth)?));
        }
        if let Some(name) = lookup(ENVIRONMENTS, &lowered) {
            return self.environment(name, depth);
        }
        Ok(lookup(SYMBOLS, &lowered).unwrap_or(word).to_owned())
    }

    /// The delimiter after LEFT/RIGHT; anything else is left in place (and `.` used).
    fn delimiter(&mut self) -> &'static str {
        let Some((kind, value)) = self.peek() else {
            return ".";
        };
        let key = if kind == Kind::Word {
            value.to_ascii_lowercase()
        } else {
            value.to_owned()
        };
        match lookup(DELIMITERS, &key) {
            Some(shown) => {
                self.pos += 1;
                shown
            }
            None => ".",
        }
    }

    fn delimited(&mut self, depth: usize) -> Parsed {
        let opening = self.delimiter();
        let inner = self.sequence(depth + 1, true)?;
        let mut closing = ".";
        if matches!(self.peek(), Some((Kind::Word, w)) if w.eq_ignore_ascii_case("right")) {
            self.pos += 1;
            closing = self.delimiter();
        }
        Ok(format!(r"\left{opening} {inner} \right{closing}"))
    }

    fn environment(&mut self, name: &str, depth: usize) -> Parsed {
        if self.peek() != Some((Kind::Other, "{")) {
            return Ok(name.to_owned());
        }
        self.pos += 1;
        self.environments += 1;
        let body = self.sequence(depth + 1, false)?;
        self.environments -= 1;
        self.take();
        Ok(format!(r"\begin{{{name}}} {body} \end{{{name}}}"))
    }
}

fn join_nonempty(parts: &[String]) -> String {
    let mut out = String::new();
    for part in parts.iter().filter(|p| !p.is_empty()) {
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(part);
    }
    out
}

/// LaTeX for an HWP equation script (best effort; never fails).
pub fn to_latex(script: &str) -> String {
    let mut parser = Parser {
        tokens: tokenize(script),
        pos: 0,
        environments: 0,
        aligns_at_top: false,
    };
    let mut parts = Vec::new();
    let result = (|| {
        while parser.peek().is_some() {
            parts.push(parser.sequence(0, false)?);
            if parser.take().is_some() {
                parts.push(r"\}".to_owned()); // a stray closing brace at top level
            }
        }
        Ok::<(), TooDeep>(())
    })();
    if result.is_err() {
        return format!(r"\text{{{}}}", text_escaped(&squeeze(script)));
    }
    let latex = join_nonempty(&parts);
    if parser.aligns_at_top {
        return format!(r"\begin{{aligned}} {latex} \end{{aligned}}");
    }
    latex
}

#[cfg(test)]
mod tests {
    use super::to_latex;

    #[test]
    fn common_syntax() {
        assert_eq!(
            to_latex("{a+b} over {sqrt {x^2 + 1}}"),
            r"\frac{a + b}{\sqrt{x^{2} + 1}}"
        );
        assert_eq!(
            to_latex("LEFT ( matrix{1 & 0 # 0 & 1} RIGHT )"),
            r"\left( \begin{matrix} 1 & 0 \\ 0 & 1 \end{matrix} \right)"
        );
    }
}
