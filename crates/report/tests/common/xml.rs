//! A strict little XML well-formedness checker and tree, enough to assert on
//! the structure of the SVG we emit: matched tags, quoted attributes, no
//! duplicate attributes, only the five predefined entities or numeric
//! references, no raw '<' or '&' in text or attribute values.

#[derive(Debug, Clone)]
pub struct Element {
    pub name: String,
    pub attrs: Vec<(String, String)>,
    pub children: Vec<Element>,
    pub text: String,
}

impl Element {
    pub fn attr(&self, k: &str) -> Option<&str> {
        self.attrs
            .iter()
            .find(|(a, _)| a == k)
            .map(|(_, v)| v.as_str())
    }

    /// All descendants (and self) in document order.
    pub fn all(&self) -> Vec<&Element> {
        let mut v = vec![self];
        for c in &self.children {
            v.extend(c.all());
        }
        v
    }

    pub fn find_all(&self, name: &str) -> Vec<&Element> {
        self.all().into_iter().filter(|e| e.name == name).collect()
    }

    pub fn has_class(&self, class: &str) -> bool {
        self.attr("class")
            .is_some_and(|c| c.split_whitespace().any(|x| x == class))
    }

    /// Text of this element and its descendants.
    pub fn all_text(&self) -> String {
        let mut s = self.text.clone();
        for c in &self.children {
            s.push_str(&c.all_text());
        }
        s
    }
}

fn unescape(s: &str) -> Result<String, String> {
    let mut out = String::new();
    let mut rest = s;
    while let Some(i) = rest.find(['&', '<']) {
        out.push_str(&rest[..i]);
        if rest[i..].starts_with('<') {
            return Err(format!("raw '<' in {s:?}"));
        }
        let end = rest[i..]
            .find(';')
            .ok_or_else(|| format!("unterminated entity in {s:?}"))?;
        let ent = &rest[i + 1..i + end];
        out.push(match ent {
            "amp" => '&',
            "lt" => '<',
            "gt" => '>',
            "quot" => '"',
            "apos" => '\'',
            e if e.starts_with("#x") => {
                char::from_u32(u32::from_str_radix(&e[2..], 16).map_err(|x| x.to_string())?)
                    .ok_or("bad char ref")?
            }
            e if e.starts_with('#') => {
                char::from_u32(e[1..].parse::<u32>().map_err(|x| x.to_string())?)
                    .ok_or("bad char ref")?
            }
            e => return Err(format!("unknown entity &{e};")),
        });
        rest = &rest[i + end + 1..];
    }
    out.push_str(rest);
    for ch in out.chars() {
        if (ch as u32) < 0x20 && !matches!(ch, '\t' | '\n' | '\r') {
            return Err(format!("control character {:#x}", ch as u32));
        }
    }
    Ok(out)
}

fn is_name_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | ':' | '.')
}

/// Parses a whole document with exactly one root element.
pub fn parse(doc: &str) -> Result<Element, String> {
    let b = doc.as_bytes();
    let mut i = 0;
    let mut stack: Vec<Element> = Vec::new();
    let mut root: Option<Element> = None;
    let skip_ws = |i: &mut usize| {
        while *i < b.len() && (b[*i] as char).is_ascii_whitespace() {
            *i += 1;
        }
    };
    skip_ws(&mut i);
    while i < b.len() {
        if b[i] == b'<' {
            if root.is_some() {
                return Err("content after the root element".into());
            }
            if doc[i..].starts_with("</") {
                let end = doc[i..].find('>').ok_or("unterminated end tag")? + i;
                let name = doc[i + 2..end].trim();
                let el = stack.pop().ok_or("end tag without start")?;
                if el.name != name {
                    return Err(format!("</{name}> closes <{}>", el.name));
                }
                i = end + 1;
                match stack.last_mut() {
                    Some(p) => p.children.push(el),
                    None => root = Some(el),
                }
                continue;
            }
            // Start tag.
            i += 1;
            let start = i;
            while i < b.len() && is_name_char(b[i] as char) {
                i += 1;
            }
            let name = doc[start..i].to_string();
            if name.is_empty() {
                return Err(format!("bad tag at byte {start}"));
            }
            let mut el = Element {
                name,
                attrs: Vec::new(),
                children: Vec::new(),
                text: String::new(),
            };
            loop {
                skip_ws(&mut i);
                if i >= b.len() {
                    return Err("unterminated start tag".into());
                }
                if doc[i..].starts_with("/>") {
                    i += 2;
                    match stack.last_mut() {
                        Some(p) => p.children.push(el),
                        None => root = Some(el),
                    }
                    break;
                }
                if b[i] == b'>' {
                    i += 1;
                    stack.push(el);
                    break;
                }
                let ks = i;
                while i < b.len() && is_name_char(b[i] as char) {
                    i += 1;
                }
                let key = doc[ks..i].to_string();
                if key.is_empty() || i >= b.len() || b[i] != b'=' {
                    return Err(format!("bad attribute in <{}>", el.name));
                }
                i += 1;
                let q = *b.get(i).ok_or("eof in attribute")?;
                if q != b'"' && q != b'\'' {
                    return Err(format!("unquoted attribute {key}"));
                }
                let vend = doc[i + 1..]
                    .find(q as char)
                    .ok_or("unterminated attribute")?
                    + i
                    + 1;
                let val = unescape(&doc[i + 1..vend])?;
                if el.attrs.iter().any(|(k, _)| *k == key) {
                    return Err(format!("duplicate attribute {key}"));
                }
                el.attrs.push((key, val));
                i = vend + 1;
            }
        } else {
            let end = doc[i..].find('<').map_or(b.len(), |e| e + i);
            let t = unescape(&doc[i..end])?;
            match stack.last_mut() {
                Some(p) => p.text.push_str(&t),
                None if t.trim().is_empty() => {}
                None => return Err("text outside the root".into()),
            }
            i = end;
        }
    }
    if !stack.is_empty() {
        return Err(format!(
            "unclosed <{}>",
            stack.last().map_or("", |e| e.name.as_str())
        ));
    }
    root.ok_or_else(|| "no root element".into())
}
