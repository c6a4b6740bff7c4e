//! 한글's equation script translated to LaTeX (the `latex` an equation block carries).
//!
//! The script language (한글's 수식 편집기, script version 6): words are commands or names, `{}`
//! groups, `over`/`atop` are infix fractions, `_`/`^` (`sub`/`sup`, `from`/`to` after big
//! operators) attach scripts to the item before them, `sqrt x` / `root n of x` are roots,
//! accents (`bar`, `vec`, `hat`...) take the item after them, `rm`/`it`/`bold` switch the font of
//! the names that follow until the group ends, `LEFT ( … RIGHT )` are sized brackets (`.` for
//! none), `matrix`/`pmatrix`/`bmatrix`/`dmatrix`/`cases`/`pile`/`lpile`/`rpile`/`eqalign` take a
//! group whose rows end at `#` and whose columns end at `&` (at the top level they are line breaks
//! and alignment marks), `~` and `` ` `` are a space and a quarter space, `"…"` is text as typed
//! and every non-ASCII run (Korean, circled letters) is text too. Symbol and operator names are
//! case-insensitive (`TIMES` = `times`) except where case is meaning: Greek letters (`pi` π, `Pi`
//! or `PI` Π), arrows (`rarrow` →, `RARROW` ⇒) and the two-letter relations (`le`, `in`, …: in
//! capitals they are names of points, `bar PM`). A word glued to a keyword splits there as 한글
//! splits it (`rmP`, `timesp`, `piover`, `rmbarCP`), except after a function or Greek letter
//! whose rest is not itself a keyword (`sinx`, `alphabet` stay names).
//!
//! `to_latex` answers `None` when the script does not translate: braces that do not balance, a
//! quote that does not end, an operator missing an operand (`x over`, `sqrt`, `a ^`), a matrix or
//! cases without its group, `#`/`&` inside a plain group, a `RIGHT` with no `LEFT`, an unknown
//! bracket after `LEFT`/`RIGHT`, a construct with no LaTeX counterpart (`ladder`, `longdiv`,
//! `rel`, `benzene`) or nesting past `MAX_DEPTH`. Everything that comes back is LaTeX KaTeX
//! reads (the corpus check in `benches/equations_katex.py` and `tests/test_equation_latex.py`).

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};
use std::sync::OnceLock;

const MAX_DEPTH: usize = 48;

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Tok<'a> {
    Word(&'a str),
    Number(&'a str),
    /// `"…"` or a run of non-ASCII characters.
    Text(&'a str),
    /// One ASCII punctuation character or a multi-character operator (`<=`, `->`).
    Punct(&'a str),
}

const MULTI_OPS: [&str; 14] = [
    "<->", "<<<", ">>>", "->", "<-", "<=", ">=", "!=", "==", "+-", "-+", "=>", "<<", ">>",
];

/// Tokens, or `None` for a quote that never ends.
fn tokenize(script: &str) -> Option<Vec<Tok<'_>>> {
    let bytes = script.as_bytes();
    let mut tokens = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        let rest = &script[i..];
        let b = bytes[i];
        if b == b'"' {
            let end = rest[1..].find('"')?;
            tokens.push(Tok::Text(&rest[1..1 + end]));
            i += end + 2;
        } else if b.is_ascii_alphabetic() {
            let n = rest.bytes().take_while(u8::is_ascii_alphabetic).count();
            split_word(&rest[..n], &mut tokens);
            i += n;
        } else if b.is_ascii_digit() {
            let mut n = rest.bytes().take_while(u8::is_ascii_digit).count();
            let after = &bytes[i + n..];
            if after.len() >= 2 && after[0] == b'.' && after[1].is_ascii_digit() {
                n += 1 + after[1..].iter().take_while(|b| b.is_ascii_digit()).count();
            }
            tokens.push(Tok::Number(&rest[..n]));
            i += n;
        } else if let Some(op) = MULTI_OPS.iter().find(|op| rest.starts_with(**op)) {
            tokens.push(Tok::Punct(&rest[..op.len()]));
            i += op.len();
        } else if b.is_ascii_whitespace() || b < 0x20 || b == 0x7f {
            i += 1;
        } else if b.is_ascii() {
            tokens.push(Tok::Punct(&rest[..1]));
            i += 1;
        } else {
            let n = rest
                .find(|c: char| c.is_ascii() || c.is_whitespace())
                .unwrap_or(rest.len());
            if n == 0 {
                // A non-ASCII space: a separator like any other.
                i += rest.chars().next().map_or(1, char::len_utf8);
            } else {
                tokens.push(Tok::Text(&rest[..n]));
                i += n;
            }
        }
    }
    Some(tokens)
}

/// How a word is read: what it means and whether a glued word may split after it.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Word {
    /// A keyword a glued word splits after (`times`, `rm`, `over`, `bar`...).
    Splitting,
    /// A keyword a glued word splits after only when its rest is keywords too (`pi`, `sin`).
    Name,
    /// Not a keyword.
    Plain,
}

fn classify(word: &str) -> Word {
    if greek(word).is_some() || function(word).is_some() {
        return Word::Name;
    }
    if keyword(word).is_some() {
        // Two-letter relations split nothing: `index` is a name, not `in dex`.
        if word.len() < 3 && font(word).is_none() {
            return Word::Name;
        }
        return Word::Splitting;
    }
    Word::Plain
}

/// The longest keyword (`centigrade`, `sqsupseteq`): no longer piece of a word is one.
const MAX_KEYWORD: usize = 10;
/// Glued words are short (`rmbarCP`); a longer word is a name and is not looked into.
const MAX_SPLIT: usize = 32;

/// A word in lower case, kept on the stack (keywords are short).
struct Lower {
    bytes: [u8; MAX_KEYWORD],
    len: usize,
}

impl Lower {
    /// `None` for a word no keyword is as long as.
    fn of(word: &str) -> Option<Self> {
        if word.len() < 2 || word.len() > MAX_KEYWORD {
            return None;
        }
        let mut bytes = [0u8; MAX_KEYWORD];
        for (to, from) in bytes.iter_mut().zip(word.bytes()) {
            *to = from.to_ascii_lowercase();
        }
        Some(Self {
            bytes,
            len: word.len(),
        })
    }

    fn as_str(&self) -> &str {
        std::str::from_utf8(&self.bytes[..self.len]).unwrap_or_default()
    }
}

/// What a keyword (in lower case) may be, from every table: one look-up per word.
#[derive(Default)]
struct Entry {
    greek: Option<&'static str>,
    /// Exact spellings (functions and case-sensitive symbols are matched as written).
    functions: Vec<(&'static str, &'static str)>,
    cased: Vec<(&'static str, &'static str)>,
    symbol: Option<&'static str>,
    big: Option<&'static str>,
    accent: Option<(&'static str, &'static str)>,
    /// The keyword and its LaTeX environment (or pile alignment).
    environment: Option<(&'static str, &'static str)>,
    unsupported: bool,
    structure: bool,
}

/// FNV-1a: the keys are the tables' own short words, looked up once or twice per word of a
/// script; SipHash's defence against chosen keys buys nothing for a map nobody else fills.
struct Fnv(u64);

impl Default for Fnv {
    fn default() -> Self {
        Self(0xcbf2_9ce4_8422_2325)
    }
}

impl Hasher for Fnv {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for b in bytes {
            self.0 = (self.0 ^ u64::from(*b)).wrapping_mul(0x0100_0000_01b3);
        }
    }
}

type Vocabulary = HashMap<String, Entry, BuildHasherDefault<Fnv>>;

fn vocabulary() -> &'static Vocabulary {
    static VOCABULARY: OnceLock<Vocabulary> = OnceLock::new();
    VOCABULARY.get_or_init(|| {
        let mut map = Vocabulary::default();
        fn at<'m>(map: &'m mut Vocabulary, key: &str) -> &'m mut Entry {
            map.entry(key.to_ascii_lowercase()).or_default()
        }
        for name in GREEK {
            at(&mut map, name).greek = Some(name);
        }
        for pair in FUNCTIONS {
            at(&mut map, pair.0).functions.push(*pair);
        }
        for pair in CASED {
            at(&mut map, pair.0).cased.push(*pair);
        }
        for (key, latex) in SYMBOLS {
            at(&mut map, key).symbol = Some(latex);
        }
        for (key, latex) in BIG_OPERATORS {
            at(&mut map, key).big = Some(latex);
        }
        for (key, one, several) in ACCENTS {
            at(&mut map, key).accent = Some((one, several));
        }
        for (key, name) in ENVIRONMENTS {
            at(&mut map, key).environment = Some((key, name));
        }
        for key in UNSUPPORTED {
            at(&mut map, key).unsupported = true;
        }
        for key in STRUCTURE {
            at(&mut map, key).structure = true;
        }
        map
    })
}

fn entry(word: &str) -> Option<&'static Entry> {
    vocabulary().get(Lower::of(word)?.as_str())
}

/// A quick no before `classify` looks at case rules.
fn maybe_keyword(piece: &str) -> bool {
    entry(piece).is_some()
}

fn piece_class(piece: &str) -> Word {
    if maybe_keyword(piece) {
        classify(piece)
    } else {
        Word::Plain
    }
}

/// A word as 한글 reads it: a keyword, or split after the longest keyword it starts with (after a
/// Greek letter or function only when the rest is keywords too), or a name.
fn split_word<'a>(word: &'a str, out: &mut Vec<Tok<'a>>) {
    if word.len() > MAX_SPLIT || piece_class(word) != Word::Plain {
        out.push(Tok::Word(word));
        return;
    }
    // keywords_from[i]: the rest of the word from `i` on is keywords only.
    let mut keywords_from = [false; MAX_SPLIT + 1];
    keywords_from[word.len()] = true;
    for i in (0..word.len()).rev() {
        keywords_from[i] = (2..=MAX_KEYWORD.min(word.len() - i))
            .any(|n| keywords_from[i + n] && piece_class(&word[i..i + n]) != Word::Plain);
    }
    let mut at = 0;
    'pieces: while at < word.len() {
        let rest = &word[at..];
        if piece_class(rest) == Word::Plain {
            for n in (2..MAX_KEYWORD.min(rest.len() - 1) + 1).rev() {
                let split = match piece_class(&rest[..n]) {
                    Word::Splitting => true,
                    Word::Name => keywords_from[at + n],
                    Word::Plain => false,
                };
                if split {
                    out.push(Tok::Word(&rest[..n]));
                    at += n;
                    continue 'pieces;
                }
            }
        }
        out.push(Tok::Word(rest));
        return;
    }
}

const GREEK: [&str; 30] = [
    "alpha",
    "beta",
    "gamma",
    "delta",
    "epsilon",
    "zeta",
    "eta",
    "theta",
    "iota",
    "kappa",
    "lambda",
    "mu",
    "nu",
    "xi",
    "omicron",
    "pi",
    "rho",
    "sigma",
    "tau",
    "upsilon",
    "phi",
    "chi",
    "psi",
    "omega",
    "varepsilon",
    "vartheta",
    "varpi",
    "varsigma",
    "varphi",
    "varrho",
];

/// Capitals LaTeX has commands for; the others look like Latin capitals.
const GREEK_CAPITALS: [&str; 11] = [
    "gamma", "delta", "theta", "lambda", "xi", "pi", "sigma", "upsilon", "phi", "psi", "omega",
];

/// A Greek letter: lower case is the small letter, a capital first letter the capital.
fn greek(word: &str) -> Option<String> {
    let name = entry(word)?.greek?;
    let lowered = Lower::of(word)?;
    let lowered = lowered.as_str();
    if word == lowered {
        return Some(if name == "omicron" {
            "o".to_owned()
        } else {
            format!("\\{name}")
        });
    }
    // A capital: `Pi` or `PI`; any other mix of cases is a name.
    let capitalised = word.starts_with(|c: char| c.is_ascii_uppercase())
        && (word[1..] == lowered[1..] || word[1..].bytes().all(|b| b.is_ascii_uppercase()));
    if !capitalised {
        return None;
    }
    if name.starts_with("var") {
        return None;
    }
    if GREEK_CAPITALS.contains(&name) {
        return Some(format!(
            "\\{}{}",
            name[..1].to_ascii_uppercase(),
            &name[1..]
        ));
    }
    let latin = match name {
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
    };
    Some(format!(r"\mathrm{{{latin}}}"))
}

#[rustfmt::skip]
const FUNCTIONS: &[(&str, &str)] = &[
    ("sin", r"\sin"), ("cos", r"\cos"), ("tan", r"\tan"), ("cot", r"\cot"), ("sec", r"\sec"),
    ("csc", r"\csc"), ("arcsin", r"\arcsin"), ("arccos", r"\arccos"), ("arctan", r"\arctan"),
    ("sinh", r"\sinh"), ("cosh", r"\cosh"), ("tanh", r"\tanh"), ("coth", r"\coth"), ("log", r"\log"),
    ("ln", r"\ln"), ("lg", r"\lg"), ("exp", r"\exp"), ("det", r"\det"), ("dim", r"\dim"),
    ("ker", r"\ker"), ("hom", r"\hom"), ("arg", r"\arg"), ("gcd", r"\gcd"),
    ("lcm", r"\operatorname{lcm}"), ("max", r"\max"), ("min", r"\min"), ("mod", r"\bmod"),
    ("lim", r"\lim"), ("Lim", r"\lim"), ("LIM", r"\lim"),
];

/// Functions are written in lower case (`lim` also as `Lim`): `SIN` is a name.
fn function(word: &str) -> Option<&'static str> {
    exact(&entry(word)?.functions, word)
}

fn cased(word: &str) -> Option<&'static str> {
    exact(&entry(word)?.cased, word)
}

/// Symbols whose case is meaning: exact match only.
#[rustfmt::skip]
const CASED: &[(&str, &str)] = &[
    ("larrow", r"\leftarrow"), ("rarrow", r"\rightarrow"), ("uparrow", r"\uparrow"),
    ("downarrow", r"\downarrow"), ("lrarrow", r"\leftrightarrow"), ("udarrow", r"\updownarrow"),
    ("LARROW", r"\Leftarrow"), ("RARROW", r"\Rightarrow"), ("UPARROW", r"\Uparrow"),
    ("DOWNARROW", r"\Downarrow"), ("LRARROW", r"\Leftrightarrow"), ("UDARROW", r"\Updownarrow"),
    ("Larrow", r"\Leftarrow"), ("Rarrow", r"\Rightarrow"), ("Uparrow", r"\Uparrow"),
    ("Downarrow", r"\Downarrow"), ("Lrarrow", r"\Leftrightarrow"), ("Udarrow", r"\Updownarrow"),
    ("vert", r"\vert"), ("VERT", r"\Vert"), ("Vert", r"\Vert"),
    ("le", r"\le"), ("ge", r"\ge"), ("ne", r"\ne"), ("in", r"\in"), ("ni", r"\ni"),
    ("pm", r"\pm"), ("mp", r"\mp"), ("lt", r"\lt"), ("gt", r"\gt"),
];

/// Symbols and operators, matched without regard to case (keys in lower case).
#[rustfmt::skip]
const SYMBOLS: &[(&str, &str)] = &[
    ("times", r"\times"), ("div", r"\div"), ("divide", r"\div"), ("plusminus", r"\pm"),
    ("minusplus", r"\mp"), ("cdot", r"\cdot"), ("circ", r"\circ"), ("bullet", r"\bullet"),
    ("ast", r"\ast"), ("star", r"\star"), ("leq", r"\le"), ("geq", r"\ge"), ("neq", r"\ne"),
    ("lll", r"\lll"), ("ggg", r"\ggg"), ("approx", r"\approx"), ("sim", r"\sim"),
    ("simeq", r"\simeq"), ("cong", r"\cong"), ("equiv", r"\equiv"), ("asymp", r"\asymp"),
    ("doteq", r"\doteq"), ("propto", r"\propto"), ("subset", r"\subset"), ("supset", r"\supset"),
    ("superset", r"\supset"), ("subseteq", r"\subseteq"), ("supseteq", r"\supseteq"),
    ("supersetEQ", r"\supseteq"), ("sqsubset", r"\sqsubset"), ("sqsupset", r"\sqsupset"),
    ("sqsubseteq", r"\sqsubseteq"), ("sqsupseteq", r"\sqsupseteq"), ("notin", r"\notin"),
    ("owns", r"\ni"), ("prec", r"\prec"), ("succ", r"\succ"), ("forall", r"\forall"),
    ("exist", r"\exists"), ("exists", r"\exists"), ("lnot", r"\neg"), ("neg", r"\neg"),
    ("wedge", r"\wedge"), ("land", r"\land"), ("vee", r"\vee"), ("lor", r"\lor"),
    ("xor", r"\veebar"), ("partial", r"\partial"), ("nabla", r"\nabla"),
    ("emptyset", r"\emptyset"), ("therefore", r"\therefore"), ("because", r"\because"),
    ("vdash", r"\vdash"), ("models", r"\models"), ("dagger", r"\dagger"), ("ddagger", r"\ddagger"),
    ("bigcirc", r"\bigcirc"), ("diamond", r"\diamond"), ("cap", r"\cap"), ("cup", r"\cup"),
    ("smallinter", r"\cap"), ("smallunion", r"\cup"), ("sqcap", r"\sqcap"), ("sqcup", r"\sqcup"),
    ("uplus", r"\uplus"), ("oplus", r"\oplus"), ("otimes", r"\otimes"), ("odot", r"\odot"),
    ("ominus", r"\ominus"), ("odiv", r"\oslash"), ("oslash", r"\oslash"), ("inf", r"\infty"),
    ("infinity", r"\infty"), ("aleph", r"\aleph"), ("hbar", r"\hbar"), ("imath", r"\imath"),
    ("jmath", r"\jmath"), ("ell", r"\ell"), ("liter", r"\ell"), ("wp", r"\wp"), ("imag", r"\Im"),
    ("image", r"\Im"), ("reimage", r"\Re"), ("ohm", r"\Omega"), ("mho", r"\mho"),
    ("angstrom", r"\text{Å}"), ("cdots", r"\cdots"), ("ldots", r"\ldots"), ("vdots", r"\vdots"),
    ("ddots", r"\ddots"), ("dots", r"\dots"), ("triangle", r"\triangle"),
    ("triangled", r"\triangledown"), ("angle", r"\angle"), ("msangle", r"\measuredangle"),
    ("sangle", r"\sphericalangle"), ("rtangle", r"\text{⊾}"), ("bot", r"\bot"), ("top", r"\top"),
    ("perp", r"\perp"), ("parallel", r"\parallel"), ("laplace", r"\mathcal{L}"),
    ("centigrade", r"{}^{\circ}\mathrm{C}"), ("fahrenheit", r"{}^{\circ}\mathrm{F}"),
    ("deg", r"^{\circ}"), ("lslant", "/"), ("rslant", r"\backslash"), ("att", "@"),
    ("hund", r"\text{‰}"), ("thou", r"\text{‱}"), ("well", r"\sharp"), ("base", r"\triangle"),
    ("lbrace", r"\{"), ("rbrace", r"\}"), ("langle", r"\langle"), ("rangle", r"\rangle"),
    ("lceil", r"\lceil"), ("rceil", r"\rceil"), ("lfloor", r"\lfloor"), ("rfloor", r"\rfloor"),
    ("nwarrow", r"\nwarrow"), ("nearrow", r"\nearrow"), ("swarrow", r"\swarrow"),
    ("searrow", r"\searrow"), ("mapsto", r"\mapsto"), ("hookleft", r"\hookleftarrow"),
    ("hookright", r"\hookrightarrow"), ("dsum", r"\boxplus"),
    ("identical", r"\equiv"),
];

/// Big operators: `from`/`to` (or `_`/`^`) give their limits.
#[rustfmt::skip]
const BIG_OPERATORS: &[(&str, &str)] = &[
    ("sum", r"\sum"), ("smallsum", r"\sum"), ("prod", r"\prod"), ("smallprod", r"\prod"),
    ("coprod", r"\coprod"), ("smcoprod", r"\coprod"), ("amalg", r"\coprod"), ("int", r"\int"),
    ("integral", r"\int"), ("smallint", r"\int"), ("dint", r"\iint"), ("tint", r"\iiint"),
    ("oint", r"\oint"), ("smalloint", r"\oint"), ("odint", r"\oiint"), ("otint", r"\oiiint"),
    ("union", r"\bigcup"), ("bigcup", r"\bigcup"), ("inter", r"\bigcap"), ("bigcap", r"\bigcap"),
    ("bigsqcup", r"\bigsqcup"), ("bigsqcap", r"\sqcap"), ("biguplus", r"\biguplus"),
    ("bigwedge", r"\bigwedge"), ("bigvee", r"\bigvee"), ("bigoplus", r"\bigoplus"),
    ("bigotimes", r"\bigotimes"), ("bigodot", r"\bigodot"), ("iint", r"\iint"),
    ("iiint", r"\iiint"),
];

/// Accents and decorations over (or under) the item after them.
#[rustfmt::skip]
const ACCENTS: &[(&str, &str, &str)] = &[
    // (keyword, over one letter, over several)
    ("bar", r"\overline", r"\overline"), ("overline", r"\overline", r"\overline"),
    ("vec", r"\vec", r"\overrightarrow"), ("hat", r"\hat", r"\widehat"),
    ("tilde", r"\tilde", r"\widetilde"), ("dot", r"\dot", r"\dot"), ("ddot", r"\ddot", r"\ddot"),
    ("acute", r"\acute", r"\acute"), ("grave", r"\grave", r"\grave"),
    ("check", r"\check", r"\widecheck"), ("under", r"\underline", r"\underline"),
    ("underline", r"\underline", r"\underline"), ("dyad", r"\overleftrightarrow", r"\overleftrightarrow"),
    ("arch", r"\overgroup", r"\overgroup"), ("not", r"\cancel", r"\cancel"),
    ("box", r"\boxed", r"\boxed"),
];

#[rustfmt::skip]
const ENVIRONMENTS: &[(&str, &str)] = &[
    ("matrix", "matrix"), ("pmatrix", "pmatrix"), ("bmatrix", "bmatrix"), ("dmatrix", "vmatrix"),
    ("cases", "cases"), ("pile", "c"), ("lpile", "l"), ("rpile", "r"), ("eqalign", "aligned"),
];

/// Constructs with no LaTeX counterpart: the script does not translate.
const UNSUPPORTED: [&str; 6] = ["ladder", "sladder", "longdiv", "rel", "buildrel", "benzene"];

/// Structural keywords (any case).
const STRUCTURE: [&str; 21] = [
    "over", "atop", "choose", "binom", "sqrt", "root", "of", "left", "right", "sub", "sup", "lsub",
    "lsup", "from", "to", "color", "bigg", "rm", "it", "bold", "prime",
];

fn exact(spellings: &[(&str, &'static str)], word: &str) -> Option<&'static str> {
    spellings.iter().find(|(k, _)| *k == word).map(|(_, v)| *v)
}

fn font(word: &str) -> Option<Font> {
    [
        ("rm", Font::Roman),
        ("it", Font::Italic),
        ("bold", Font::Bold),
    ]
    .into_iter()
    .find(|(k, _)| k.eq_ignore_ascii_case(word))
    .map(|(_, f)| f)
}

/// Any keyword (for splitting glued words): the meaning is looked up again when read.
fn keyword(word: &str) -> Option<()> {
    let e = entry(word)?;
    let known = exact(&e.cased, word).is_some()
        || e.symbol.is_some()
        || e.big.is_some()
        || e.accent.is_some()
        || e.environment.is_some()
        || e.structure
        || e.unsupported;
    known.then_some(())
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Font {
    Roman,
    Italic,
    Bold,
}

/// Why a script does not translate (kept for the tests' messages; the caller sees `None`).
#[derive(Debug, PartialEq, Eq)]
struct Untranslatable;

type Parsed<T> = Result<T, Untranslatable>;

/// One item of a sequence: its LaTeX and what may still attach to it.
#[derive(Debug, Default)]
struct Item {
    latex: String,
    /// A space (`~`, `` ` ``): never an operand, skipped when scripts and fractions look back.
    space: bool,
    has_sub: bool,
    has_sup: bool,
    /// A `{…}` group's inside, used bare as a fraction's numerator.
    group: Option<String>,
    /// An operator or relation (`+`, `=`, `\times`, `\rightarrow`): a font word after it leaves
    /// the scripts that follow without a base (a prescript), as after nothing.
    operator: bool,
}

impl Item {
    fn plain(latex: String) -> Self {
        Self {
            latex,
            ..Self::default()
        }
    }

    fn numerator(self) -> String {
        if !self.has_sub && !self.has_sup {
            if let Some(inside) = self.group {
                return inside;
            }
        }
        self.latex
    }
}

/// Rows of cells: what `#` and `&` divide a group into.
struct Grid {
    rows: Vec<Vec<String>>,
}

impl Grid {
    fn single(self) -> Parsed<String> {
        match self.rows.as_slice() {
            [row] => match row.as_slice() {
                [cell] => Ok(cell.clone()),
                _ => Err(Untranslatable),
            },
            _ => Err(Untranslatable),
        }
    }

    fn is_single(&self) -> bool {
        self.rows.len() == 1 && self.rows[0].len() == 1
    }

    fn columns(&self) -> usize {
        self.rows.iter().map(Vec::len).max().unwrap_or(1)
    }

    fn body(&self) -> String {
        self.rows
            .iter()
            .map(|row| row.join(" & "))
            .collect::<Vec<_>>()
            .join(r" \\ ")
    }
}

struct Parser<'a> {
    tokens: Vec<Tok<'a>>,
    pos: usize,
    font: Font,
    depth: usize,
}

fn is_word(token: Option<Tok<'_>>, name: &str) -> bool {
    matches!(token, Some(Tok::Word(w)) if w.eq_ignore_ascii_case(name))
}

fn join(items: Vec<Item>) -> String {
    let mut out = String::new();
    for item in items {
        if item.latex.is_empty() {
            continue;
        }
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(&item.latex);
    }
    out
}

impl<'a> Parser<'a> {
    fn peek(&self) -> Option<Tok<'a>> {
        self.tokens.get(self.pos).copied()
    }

    fn at_end_of_group(&self) -> bool {
        matches!(self.peek(), None | Some(Tok::Punct("}")))
    }

    fn descend(&mut self) -> Parsed<()> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(Untranslatable);
        }
        Ok(())
    }

    /// Items up to the end of the group (`}` or the end), or to `RIGHT` inside `LEFT … RIGHT`;
    /// `#` and `&` divide them into rows and cells.
    fn grid(&mut self, inside_left: bool) -> Parsed<Grid> {
        self.descend()?;
        let font = self.font;
        let mut rows = vec![Vec::new()];
        let mut items: Vec<Item> = Vec::new();
        loop {
            let token = self.peek();
            if self.at_end_of_group() || (inside_left && is_word(token, "right")) {
                break;
            }
            match token {
                Some(Tok::Punct("&")) => {
                    self.pos += 1;
                    push_cell(&mut rows, std::mem::take(&mut items));
                }
                Some(Tok::Punct("#")) => {
                    self.pos += 1;
                    push_cell(&mut rows, std::mem::take(&mut items));
                    rows.push(Vec::new());
                }
                _ => self.step(&mut items)?,
            }
        }
        push_cell(&mut rows, items);
        self.font = font;
        self.depth -= 1;
        Ok(Grid { rows })
    }

    /// Reads one thing into `items`: an item, or a script/fraction/font that works on them.
    fn step(&mut self, items: &mut Vec<Item>) -> Parsed<()> {
        let Some(token) = self.peek() else {
            return Err(Untranslatable);
        };
        if let Tok::Word(word) = token {
            let lowered = Lower::of(word);
            let lowered = lowered.as_ref().map_or("", Lower::as_str);
            if let Some(font) = font(word) {
                self.pos += 1;
                self.font = font;
                // An empty item: scripts right after a font word have no base (`it _{6} rm P`
                // is ₆P, a prescript), as 한글 draws them.
                items.push(Item::default());
                return Ok(());
            }
            match lowered {
                "over" | "atop" | "choose" => {
                    self.pos += 1;
                    let numerator = pop_operand(items)?.numerator();
                    let denominator = self.operand()?.numerator();
                    let latex = match lowered {
                        "over" => format!(r"\frac{{{numerator}}}{{{denominator}}}"),
                        "atop" => {
                            format!(r"\genfrac{{}}{{}}{{0pt}}{{}}{{{numerator}}}{{{denominator}}}")
                        }
                        _ => format!(r"\binom{{{numerator}}}{{{denominator}}}"),
                    };
                    items.push(Item::plain(latex));
                    return Ok(());
                }
                "sub" | "sup" | "from" | "to" => {
                    self.pos += 1;
                    let upper = lowered == "sup" || lowered == "to";
                    return self.script(items, upper);
                }
                "lsub" | "lsup" => {
                    self.pos += 1;
                    let mark = if lowered == "lsub" { "_" } else { "^" };
                    let base = pop_operand(items)?;
                    let argument = self.argument()?;
                    items.push(Item::plain(format!(
                        "{{}}{mark}{{{argument}}} {}",
                        base.latex
                    )));
                    return Ok(());
                }
                _ => {}
            }
        }
        match token {
            Tok::Punct("^") => {
                self.pos += 1;
                self.script(items, true)
            }
            Tok::Punct("_") => {
                self.pos += 1;
                self.script(items, false)
            }
            Tok::Punct("'") => {
                self.pos += 1;
                self.prime(items);
                Ok(())
            }
            Tok::Word(w) if w.eq_ignore_ascii_case("prime") => {
                self.pos += 1;
                self.prime(items);
                Ok(())
            }
            _ => {
                let item = self.atom()?;
                items.push(item);
                Ok(())
            }
        }
    }

    fn prime(&mut self, items: &mut Vec<Item>) {
        let base = script_base(items);
        if base.has_sup {
            base.latex = format!("{{{}}}", base.latex);
            base.has_sub = false;
        }
        base.latex.push('\'');
        base.has_sup = true;
        base.group = None;
    }

    fn script(&mut self, items: &mut Vec<Item>, upper: bool) -> Parsed<()> {
        let argument = self.argument()?;
        let base = script_base(items);
        let taken = if upper { base.has_sup } else { base.has_sub };
        if taken {
            base.latex = format!("{{{}}}", base.latex);
            base.has_sub = false;
            base.has_sup = false;
        }
        let mark = if upper { '^' } else { '_' };
        base.latex.push_str(&format!("{mark}{{{argument}}}"));
        if upper {
            base.has_sup = true;
        } else {
            base.has_sub = true;
        }
        base.group = None;
        Ok(())
    }

    /// An item and the scripts after it (a fraction's denominator).
    fn operand(&mut self) -> Parsed<Item> {
        let mut items = Vec::new();
        loop {
            if self.at_end_of_group() {
                break;
            }
            match self.peek() {
                Some(Tok::Punct("~" | "`")) if items.is_empty() => {
                    self.pos += 1; // a space before the denominator
                }
                Some(Tok::Word(w)) if font(w).is_some() && items.is_empty() => {
                    self.pos += 1;
                    self.font = font(w).unwrap_or(self.font);
                }
                Some(Tok::Punct("^" | "_" | "'")) if !items.is_empty() => self.step(&mut items)?,
                Some(Tok::Word(w))
                    if !items.is_empty()
                        && ["sub", "sup", "prime"]
                            .iter()
                            .any(|k| k.eq_ignore_ascii_case(w)) =>
                {
                    self.step(&mut items)?;
                }
                _ if items.is_empty() => {
                    let item = self.atom()?;
                    items.push(item);
                }
                _ => break,
            }
        }
        items.pop().ok_or(Untranslatable)
    }

    /// What a command takes: a group's inside, or the next item.
    fn argument(&mut self) -> Parsed<String> {
        self.descend()?;
        let argument = self.argument_within();
        self.depth -= 1;
        argument
    }

    fn argument_within(&mut self) -> Parsed<String> {
        loop {
            match self.peek() {
                Some(Tok::Punct("~" | "`")) => self.pos += 1,
                Some(Tok::Word(w)) if font(w).is_some() => {
                    self.pos += 1;
                    self.font = font(w).unwrap_or(self.font);
                }
                _ => break,
            }
        }
        if self.peek() == Some(Tok::Punct("{")) {
            return self.group_inside();
        }
        if self.at_end_of_group() {
            return Err(Untranslatable);
        }
        Ok(self.atom()?.latex)
    }

    /// `{…}` read to its closing brace: the inside as one cell.
    fn group_inside(&mut self) -> Parsed<String> {
        let grid = self.braced_grid()?;
        grid.single()
    }

    fn braced_grid(&mut self) -> Parsed<Grid> {
        if self.peek() != Some(Tok::Punct("{")) {
            return Err(Untranslatable);
        }
        self.pos += 1;
        let grid = self.grid(false)?;
        if self.peek() != Some(Tok::Punct("}")) {
            return Err(Untranslatable); // the group never closes
        }
        self.pos += 1;
        Ok(grid)
    }

    fn atom(&mut self) -> Parsed<Item> {
        let Some(token) = self.peek() else {
            return Err(Untranslatable);
        };
        self.pos += 1;
        let latex = match token {
            Tok::Punct("{") => {
                self.pos -= 1;
                let inside = self.group_inside()?;
                return Ok(Item {
                    latex: format!("{{{inside}}}"),
                    group: Some(inside),
                    ..Item::default()
                });
            }
            Tok::Punct("}") => return Err(Untranslatable),
            Tok::Punct("~") => {
                return Ok(Item {
                    latex: r"\ ".to_owned(),
                    space: true,
                    ..Item::default()
                });
            }
            Tok::Punct("`") => {
                return Ok(Item {
                    latex: r"\,".to_owned(),
                    space: true,
                    ..Item::default()
                });
            }
            Tok::Punct(p) => {
                let mut item = Item::plain(punct(p)?.to_owned());
                item.operator = !matches!(p, ")" | "]" | "|" | "." | "!" | "'");
                return Ok(item);
            }
            Tok::Number(n) => match self.font {
                Font::Bold => format!(r"\mathbf{{{n}}}"),
                _ => n.to_owned(),
            },
            Tok::Text(t) => format!(r"\text{{{}}}", text_escaped(t)),
            Tok::Word(w) => {
                let mut item = Item::plain(self.word(w)?);
                item.operator = entry(w)
                    .is_some_and(|e| e.symbol.is_some() || e.big.is_some() || cased(w).is_some());
                return Ok(item);
            }
        };
        Ok(Item::plain(latex))
    }

    fn word(&mut self, word: &str) -> Parsed<String> {
        let Some(e) = entry(word) else {
            return Ok(self.name(word));
        };
        let lowered = Lower::of(word);
        let lowered = lowered.as_ref().map_or("", Lower::as_str);
        if let Some(letter) = greek(word) {
            return Ok(match self.font {
                Font::Bold => format!(r"\boldsymbol{{{letter}}}"),
                _ => letter,
            });
        }
        if let Some(f) = function(word) {
            return Ok(f.to_owned());
        }
        if let Some(s) = cased(word) {
            return Ok(s.to_owned());
        }
        if e.unsupported {
            return Err(Untranslatable);
        }
        match lowered {
            "sqrt" | "root" => return self.root(),
            "left" => return self.delimited(),
            // Infix and postfix words where an item should be: an operand is missing.
            "right" | "over" | "atop" | "choose" | "sub" | "sup" | "lsub" | "lsup" | "from"
            | "to" | "of" | "prime" => return Err(Untranslatable),
            "binom" => {
                let top = self.argument()?;
                let bottom = self.argument()?;
                return Ok(format!(r"\binom{{{top}}}{{{bottom}}}"));
            }
            "color" => {
                self.argument()?; // the colour itself: not shown
                return self.argument();
            }
            "bigg" => return Ok(String::new()), // the bracket after it is read as it is
            _ => {}
        }
        if let Some((one, several)) = e.accent {
            let argument = self.argument()?;
            let command = if is_one_symbol(&argument) {
                one
            } else {
                several
            };
            return Ok(format!("{command}{{{argument}}}"));
        }
        if let Some((keyword, name)) = e.environment {
            return self.environment(keyword, name);
        }
        if let Some(s) = e.big.or(e.symbol) {
            return Ok(s.to_owned());
        }
        Ok(self.name(word))
    }

    /// A name (`x`, `PQ`) in the font in force.
    fn name(&self, word: &str) -> String {
        match self.font {
            Font::Roman => format!(r"\mathrm{{{word}}}"),
            Font::Bold => format!(r"\mathbf{{{word}}}"),
            Font::Italic => word.to_owned(),
        }
    }

    fn root(&mut self) -> Parsed<String> {
        let first = self.argument()?;
        if is_word(self.peek(), "of") {
            self.pos += 1;
            let radicand = self.argument()?;
            return Ok(format!(r"\sqrt[{first}]{{{radicand}}}"));
        }
        Ok(format!(r"\sqrt{{{first}}}"))
    }

    /// The bracket after `LEFT`/`RIGHT`.
    fn delimiter(&mut self) -> Parsed<&'static str> {
        let Some(token) = self.peek() else {
            return Err(Untranslatable);
        };
        let shown = match token {
            Tok::Punct(p) => match p {
                "(" => "(",
                ")" => ")",
                "[" => "[",
                "]" => "]",
                "{" => r"\{",
                "}" => r"\}",
                "|" => "|",
                "<" => r"\langle",
                ">" => r"\rangle",
                "." => ".",
                "/" => "/",
                _ => return Err(Untranslatable),
            },
            Tok::Word(w) => match Lower::of(w).as_ref().map_or("", Lower::as_str) {
                "lbrace" => r"\{",
                "rbrace" => r"\}",
                "langle" => r"\langle",
                "rangle" => r"\rangle",
                "lceil" => r"\lceil",
                "rceil" => r"\rceil",
                "lfloor" => r"\lfloor",
                "rfloor" => r"\rfloor",
                "vert" if w == "VERT" => r"\Vert",
                "vert" => "|",
                _ => return Err(Untranslatable),
            },
            _ => return Err(Untranslatable),
        };
        self.pos += 1;
        // `||` is one double bar.
        if shown == "|" && self.peek() == Some(Tok::Punct("|")) {
            self.pos += 1;
            return Ok(r"\Vert");
        }
        Ok(shown)
    }

    fn delimited(&mut self) -> Parsed<String> {
        let opening = self.delimiter()?;
        let inside = self.grid(true)?;
        // A LEFT without its RIGHT draws the one bracket: the right side stays empty.
        let closing = if is_word(self.peek(), "right") {
            self.pos += 1;
            self.delimiter()?
        } else {
            "."
        };
        let inside = inside.single()?;
        Ok(format!(r"\left{opening} {inside} \right{closing}"))
    }

    fn environment(&mut self, keyword: &str, name: &str) -> Parsed<String> {
        let grid = self.braced_grid()?;
        let body = grid.body();
        Ok(match keyword {
            "pile" | "lpile" | "rpile" => {
                let columns = name.repeat(grid.columns());
                format!(r"\begin{{array}}{{{columns}}} {body} \end{{array}}")
            }
            "cases" if grid.columns() > 2 => {
                let columns = "l".repeat(grid.columns());
                format!(r"\left\{{ \begin{{array}}{{{columns}}} {body} \end{{array}} \right.")
            }
            _ => format!(r"\begin{{{name}}} {body} \end{{{name}}}"),
        })
    }
}

fn push_cell(rows: &mut [Vec<String>], items: Vec<Item>) {
    if let Some(row) = rows.last_mut() {
        row.push(join(items));
    }
}

/// The last item that is not a space, the spaces after it dropped (`log` _3` is `\log_{3}`).
///
/// Scripts after a font word (`rm P it _{3}`) belong to the item before it (P₃), unless that is
/// an operator or there is none (`- it _{4} rm P`: a prescript, on an empty base).
fn last_operand(items: &mut Vec<Item>) -> Option<&mut Item> {
    while items.last().is_some_and(|i| i.space) {
        items.pop();
    }
    let mut base = items.len().checked_sub(1)?;
    if items[base].latex.is_empty() {
        let before = items[..base]
            .iter()
            .rposition(|i| !i.space && !i.latex.is_empty());
        if let Some(before) = before.filter(|&b| !items[b].operator) {
            items.truncate(before + 1);
            base = before;
        }
    }
    items.get_mut(base)
}

/// What a script or prime attaches to: the last operand, or an empty base (`{}`) when there is
/// none (`^3 sqrt x`, a prescript after a font word).
fn script_base(items: &mut Vec<Item>) -> &mut Item {
    if last_operand(items).is_none() {
        items.push(Item::default());
    }
    let last = items.len() - 1;
    let base = &mut items[last];
    if base.latex.is_empty() {
        base.latex.push_str("{}");
    }
    base
}

/// A fraction's numerator: the last item, past spaces and font words.
fn pop_operand(items: &mut Vec<Item>) -> Parsed<Item> {
    while items.last().is_some_and(|i| i.space || i.latex.is_empty()) {
        items.pop();
    }
    items.pop().ok_or(Untranslatable)
}

/// One letter or one command with nothing after it: the narrow accent fits.
fn is_one_symbol(latex: &str) -> bool {
    let mut chars = latex.chars();
    match chars.next() {
        Some(c) if c.is_ascii_alphanumeric() => chars.next().is_none(),
        Some('\\') => chars.all(|c| c.is_ascii_alphabetic()),
        _ => false,
    }
}

fn punct(p: &str) -> Parsed<&str> {
    Ok(match p {
        "<->" => r"\leftrightarrow",
        "->" => r"\rightarrow",
        "<-" => r"\leftarrow",
        "<=" => r"\le",
        ">=" => r"\ge",
        "!=" => r"\ne",
        "==" => r"\equiv",
        "+-" => r"\pm",
        "-+" => r"\mp",
        "=>" => r"\Rightarrow",
        "<<" => r"\ll",
        ">>" => r"\gg",
        "<<<" => r"\lll",
        ">>>" => r"\ggg",
        "<" => r"\lt",
        ">" => r"\gt",
        "\\" => r"\backslash",
        "%" => r"\%",
        "$" => r"\$",
        "\"" | "&" | "#" => return Err(Untranslatable),
        _ => p,
    })
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
            '^' => out.push_str(r"\textasciicircum{}"),
            '~' => out.push_str(r"\textasciitilde{}"),
            '<' => out.push_str(r"\textless{}"),
            '>' => out.push_str(r"\textgreater{}"),
            _ => out.push(c),
        }
    }
    out
}

/// The LaTeX of an equation script, or `None` when it does not translate (see the module).
pub fn to_latex(script: &str) -> Option<String> {
    let tokens = tokenize(script)?;
    if tokens.is_empty() {
        return None;
    }
    let mut parser = Parser {
        tokens,
        pos: 0,
        font: Font::Italic,
        depth: 0,
    };
    let grid = parser.grid(false).ok()?;
    if parser.pos != parser.tokens.len() {
        return None; // a `}` with no `{`
    }
    if grid.is_single() {
        return grid.single().ok();
    }
    // `#` and `&` at the top level: lines and alignment marks.
    Some(format!(
        r"\begin{{aligned}} {} \end{{aligned}}",
        grid.body()
    ))
}

#[cfg(test)]
mod tests {
    use super::to_latex;

    fn latex(script: &str) -> String {
        to_latex(script).unwrap_or_else(|| panic!("{script:?} does not translate"))
    }

    /// Each script gives exactly its LaTeX.
    fn check(cases: &[(&str, &str)]) {
        for (script, expected) in cases {
            assert_eq!(latex(script), *expected, "{script}");
        }
    }

    /// Formulas from the corpus's exam paper (rhwp-mock-exam-2023-09.hwpx), each checked by hand
    /// against what the script draws in 한글.
    #[test]
    fn exam_paper_formulas() {
        let cases = [
            ("3  ^{1- sqrt {5}}  TIMES 3  ^{1+ sqrt {5}}", r"3^{1 - \sqrt{5}} \times 3^{1 + \sqrt{5}}"),
            ("lim _{x` -> `1} {} ` {f(x)-1} over {x-1}", r"\lim_{x \, \rightarrow \, 1} {} \, \frac{f ( x ) - 1}{x - 1}"),
            ("{3} over {2}  pi < theta <2 pi", r"\frac{3}{2} \pi \lt \theta \lt 2 \pi"),
            ("cos` theta = {sqrt {6}} over {3}", r"\cos \, \theta = \frac{\sqrt{6}}{3}"),
            ("LEFT { a  _{n} it RIGHT }", r"\left\{ a_{n} \right\}"),
            ("3a+2b=log`  _{3}` 32", r"3 a + 2 b = \log_{3} \, 32"),
            ("f`` prime (x)=6x  ^{2} -2f(1)x", r"f' ( x ) = 6 x^{2} - 2 f ( 1 ) x"),
            ("0 LEQ x LEQ 2 pi", r"0 \le x \le 2 \pi"),
            ("rm bar PM = root{ 4^2 - 2^2 } = 2root3", r"\overline{\mathrm{PM}} = \sqrt{4^{2} - 2^{2}} = 2 \sqrt{3}"),
            ("rmbarCP =barCQ =itx", r"\overline{\mathrm{CP}} = \overline{\mathrm{CQ}} = x"),
            ("sin`pi over7 =cos`left(pi over2 - piover7 right)", r"\sin \, \frac{\pi}{7} = \cos \, \left( \frac{\pi}{2} - \frac{\pi}{7} \right)"),
            ("128 timesp =62`", r"128 \times p = 62 \,"),
            ("  it _{6} rm P it _{3}=6times5times4 =120", r"{}_{6} \mathrm{P}_{3} = 6 \times 5 \times 4 = 120"),
            ("rm P(A SMALLINTER B)= {1} over {5}", r"\mathrm{P} ( \mathrm{A} \cap \mathrm{B} ) = \frac{1}{5}"),
            ("{vec{rm AC it}} BULLET {vec{rm AQ it}} <0", r"{\overrightarrow{\mathrm{AC}}} \bullet {\overrightarrow{\mathrm{AQ}}} \lt 0"),
            ("LEFT { 6,``7 RIGHT } SUBSET  LEFT { f LEFT ( x RIGHT ) ` vert `x LEQ k RIGHT } `", r"\left\{ 6 , \, \, 7 \right\} \subset \left\{ f \left( x \right) \, \vert \, x \le k \right\} \,"),
            ("f(x)= {cases{2  ^{x+a} +b``&(x LEQ -8)#-3  ^{x-3} +8``&(x>-8)}}", r"f ( x ) = {\begin{cases} 2^{x + a} + b \, \, & ( x \le - 8 ) \\ - 3^{x - 3} + 8 \, \, & ( x \gt - 8 ) \end{cases}}"),
            ("a  _{n+1} = {cases{`a  _{n} +1&(a  _{n} 이````홀수인````경우)#` {1} over {2} a  _{n}&(a  _{n} 이````짝수인````경우)}}", r"a_{n + 1} = {\begin{cases} \, a_{n} + 1 & ( a_{n} \text{이} \, \, \, \, \text{홀수인} \, \, \, \, \text{경우} ) \\ \, \frac{1}{2} a_{n} & ( a_{n} \text{이} \, \, \, \, \text{짝수인} \, \, \, \, \text{경우} ) \end{cases}}"),
            ("= LEFT [ {1} over {a} `cos`at RIGHT ]  _{0} ^{{ pi } over {a}}", r"= \left[ \frac{1}{a} \, \cos \, at \right]_{0}^{\frac{\pi}{a}}"),
            ("= {1} over {2} LEFT [ pile{`#`} e ^{x} -e ^{-x} RIGHT ] _{-ln`4}^{0}", r"= \frac{1}{2} \left[ \begin{array}{c} \, \\ \, \end{array} e^{x} - e^{- x} \right]_{- \ln \, 4}^{0}"),
            ("R  _{2} = BOX{````㈎````} `` TIMES  rm bar{BD}", r"R_{2} = \boxed{\, \, \, \, \text{㈎} \, \, \, \,} \, \, \times \overline{\mathrm{BD}}"),
            ("lim _{n` rarrow ` INF } {{a ^{n} +b ^{n+1}} over {a ^{n+1} +b ^{n}}}", r"\lim_{n \, \rightarrow \, \infty} {\frac{a^{n} + b^{n + 1}}{a^{n + 1} + b^{n}}}"),
            ("=`- int _{0} ^{{pi } over {a}} {LEFT ( -sin`at RIGHT ) dt`}", r"= \, - \int_{0}^{\frac{\pi}{a}} {\left( - \sin \, at \right) dt \,}"),
            ("평점 = 입찰가격평가 배점한도 TIMES LEFT ( {최저입찰가격} over {당해입찰가격}  RIGHT )   \n", r"\text{평점} = \text{입찰가격평가} \text{배점한도} \times \left( \frac{\text{최저입찰가격}}{\text{당해입찰가격}} \right)"),
            ("CR` _{j} `=` {S _{ij} ````-EX _{ij} `} over {sum _{j=1} ^{N} S _{ij} ``- sum _{j=1} ^{N} EX _{ij} ``+``IM _{i}} `", r"CR_{j} \, = \, \frac{S_{ij} \, \, \, \, - EX_{ij} \,}{\sum_{j = 1}^{N} S_{ij} \, \, - \sum_{j = 1}^{N} EX_{ij} \, \, + \, \, IM_{i}} \,"),
        ];
        check(&cases);
    }

    #[test]
    fn vocabulary_and_case() {
        check(&[
            (
                "alpha + Beta + GAMMA + omega",
                r"\alpha + \mathrm{B} + \Gamma + \omega",
            ),
            ("a TIMES b cdot c", r"a \times b \cdot c"),
            ("A RARROW B rarrow C", r"A \Rightarrow B \rightarrow C"),
            // Two-letter relations in capitals are names of points.
            ("x in A, rm PM", r"x \in A , \mathrm{PM}"),
            (
                "int from 0 to inf e^{-x} dx",
                r"\int_{0}^{\infty} e^{- x} dx",
            ),
            ("x_1 sup 2 sub 3", r"{x_{1}^{2}}_{3}"),
            ("a lsub 2", r"{}_{2} a"),
            // Scripts after a font word: on the item before, or a prescript after an operator.
            ("a - it _{4} rm P it _{3}", r"a - {}_{4} \mathrm{P}_{3}"),
            ("{rm{P}} it _{1}", r"{{\mathrm{P}}}_{1}"),
            ("a atop b", r"\genfrac{}{}{0pt}{}{a}{b}"),
            ("n choose k", r"\binom{n}{k}"),
            (
                "hat x + hat {xy} + tilde {ab} + dot y + under z",
                r"\hat{x} + \widehat{xy} + \widetilde{ab} + \dot{y} + \underline{z}",
            ),
            ("bold v + rm d it x", r"\mathbf{v} + \mathrm{d} x"),
            ("sqrt 2 of x", r"\sqrt[2]{x}"),
            ("sinx + alphabet", r"sinx + alphabet"),
            ("color {red} {x} + 1", r"x + 1"),
            ("90 deg", r"90 ^{\circ}"),
        ]);
    }

    #[test]
    fn grids_brackets_and_lines() {
        check(&[
            (
                "matrix{1 & 0 # 0 & 1}",
                r"\begin{matrix} 1 & 0 \\ 0 & 1 \end{matrix}",
            ),
            (
                "dmatrix{a & b # c & d}",
                r"\begin{vmatrix} a & b \\ c & d \end{vmatrix}",
            ),
            ("bmatrix{x & y}", r"\begin{bmatrix} x & y \end{bmatrix}"),
            ("lpile{a # bb}", r"\begin{array}{l} a \\ bb \end{array}"),
            (
                "eqalign{a &= b # &= c}",
                r"\begin{aligned} a & = b \\  & = c \end{aligned}",
            ),
            (
                "a = b # c = d",
                r"\begin{aligned} a = b \\ c = d \end{aligned}",
            ),
            ("LEFT | x RIGHT |", r"\left| x \right|"),
            ("LEFT . x RIGHT ]", r"\left. x \right]"),
            ("LEFT ( x", r"\left( x \right."),
            (
                "LEFT lfloor x RIGHT rfloor",
                r"\left\lfloor x \right\rfloor",
            ),
        ]);
    }

    #[test]
    fn what_does_not_translate() {
        for script in [
            "",
            " \n",
            "{a",
            "a}",
            "x over",
            "over x",
            "sqrt",
            "a ^",
            "\"open",
            "LEFT ( x RIGHT",
            "x RIGHT )",
            "LEFT @ x RIGHT )",
            "matrix a",
            "{a # b} over c",
            "ladder{1 & 2}",
        ] {
            assert_eq!(to_latex(script), None, "{script:?}");
        }
        assert_eq!(
            to_latex(&format!("{}x{}", "{".repeat(100), "}".repeat(100))),
            None
        );
        // Unbraced nesting is bounded too (no stack overflow).
        assert!(to_latex(&"sqrt ".repeat(10_000)).is_none());
    }

    #[test]
    fn keywords_fit_the_split_bound() {
        use super::*;
        let pairs = [FUNCTIONS, CASED, SYMBOLS, BIG_OPERATORS, ENVIRONMENTS];
        let words = pairs.iter().flat_map(|t| t.iter().map(|(k, _)| *k));
        let longest = words
            .chain(GREEK)
            .chain(ACCENTS.iter().map(|(k, _, _)| *k))
            .chain(UNSUPPORTED)
            .chain(STRUCTURE)
            .map(str::len)
            .max();
        assert_eq!(longest, Some(MAX_KEYWORD));
        // A long run of letters costs in proportion (no backtracking over its pieces).
        let long = "pi".repeat(200_000) + "x";
        assert_eq!(to_latex(&long).map(|l| l.len()), Some(long.len()));
    }

    #[test]
    fn text_is_escaped() {
        assert_eq!(latex("\"a_b {c} 100%\""), r"\text{a\_b \{c\} 100\%}");
        assert_eq!(latex("<script>"), r"\lt script \gt");
    }
}
