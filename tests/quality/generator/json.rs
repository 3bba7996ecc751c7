//! A JSON object writer that keeps keys in the order given, so lines come out
//! in the key order Codex and Claude Code write (serde_json's `Value` sorts
//! them, and memkit's Codex fast path reads a line's head by that order).

/// A JSON object being written.
pub struct Obj {
    buf: String,
}

impl Obj {
    /// An empty object.
    pub fn new() -> Obj {
        Obj {
            buf: String::from("{"),
        }
    }

    /// Adds `key` with a pre-rendered JSON value.
    pub fn raw(mut self, key: &str, json: &str) -> Obj {
        if self.buf.len() > 1 {
            self.buf.push(',');
        }
        self.buf.push_str(&quote(key));
        self.buf.push(':');
        self.buf.push_str(json);
        self
    }

    /// Adds a string.
    pub fn s(self, key: &str, value: &str) -> Obj {
        self.raw(key, &quote(value))
    }

    /// Adds a number.
    pub fn n(self, key: &str, value: i64) -> Obj {
        self.raw(key, &value.to_string())
    }

    /// Adds a boolean.
    pub fn b(self, key: &str, value: bool) -> Obj {
        self.raw(key, if value { "true" } else { "false" })
    }

    /// Adds a nested object.
    pub fn o(self, key: &str, value: Obj) -> Obj {
        self.raw(key, &value.end())
    }

    /// Adds an array of objects.
    pub fn a(self, key: &str, items: Vec<Obj>) -> Obj {
        self.raw(key, &array(items))
    }

    /// The rendered object.
    pub fn end(mut self) -> String {
        self.buf.push('}');
        self.buf
    }
}

/// A JSON string literal.
pub fn quote(s: &str) -> String {
    serde_json::to_string(s).expect("a string serialises")
}

/// A JSON array of strings.
pub fn strings(items: &[&str]) -> String {
    let items: Vec<String> = items.iter().map(|s| quote(s)).collect();
    format!("[{}]", items.join(","))
}

/// A JSON array of objects.
pub fn array(items: Vec<Obj>) -> String {
    let items: Vec<String> = items.into_iter().map(Obj::end).collect();
    format!("[{}]", items.join(","))
}
