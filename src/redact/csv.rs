//! A CSV export's secret column (password managers, browsers, user dumps):
//! a header line names the columns (`name,url,username,password`,
//! Bitwarden's `login_password`), and each row's cell in that column goes.

use super::Finding;
use super::generic::{Kind, accepts_value};
use super::lex::{Value, escape_at, line_start};

/// Rows looked at after a header.
const MAX_ROWS: usize = 256;

/// The end of the line at `i` (at most `max` bytes on): a line break, real
/// or escaped. Unlike [`super::lex::line_end`] a quote does not end it.
fn row_end(text: &[u8], i: usize, max: usize) -> usize {
    let limit = text.len().min(i + max);
    (i..limit)
        .find(|&j| {
            matches!(text[j], b'\n' | b'\r')
                || (text[j] == b'\\' && matches!(escape_at(text, j), Some((b'n' | b'r', _))))
        })
        .unwrap_or(limit)
}

/// The start of the line after the break at `end` (one break only: a
/// blank line ends a table).
fn next_line(text: &[u8], end: usize) -> usize {
    match (text.get(end), text.get(end + 1)) {
        (Some(b'\r'), Some(b'\n')) => end + 2,
        (Some(b'\n' | b'\r'), _) => end + 1,
        _ => end + escape_at(text, end).map_or(0, |(_, width)| width),
    }
}

/// The cells of the line `from..to`: their contents, quotes excluded. A
/// quoted cell may hold commas (`"a, b"`) and doubled quotes.
fn cells(text: &[u8], from: usize, to: usize) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut i = from;
    loop {
        let (start, end, next) = if text.get(i) == Some(&b'"') {
            let mut j = i + 1;
            while j < to && !(text[j] == b'"' && text.get(j + 1) != Some(&b'"')) {
                j += if text[j] == b'"' { 2 } else { 1 };
            }
            (i + 1, j.min(to), (j + 1).min(to))
        } else {
            let end = text[i..to]
                .iter()
                .position(|&b| b == b',')
                .map_or(to, |p| i + p);
            (i, end, end)
        };
        out.push((start, end));
        if next >= to || text[next] != b',' {
            return out;
        }
        i = next + 1;
    }
}

/// Whether every cell is a column name: a short word or words.
fn is_header(text: &[u8], cells: &[(usize, usize)]) -> bool {
    cells.len() >= 2
        && cells.iter().all(|&(s, e)| {
            (1..=40).contains(&(e - s))
                && text[s..e]
                    .iter()
                    .all(|&b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b' ' | b'-' | b'.'))
        })
}

/// The secret-named cell `name_start..name_end` of a CSV header line: each
/// following row's cell in its column that `kind` accepts. Returns whether
/// the name was such a header cell.
pub(super) fn secret_column(
    text: &[u8],
    name_start: usize,
    name_end: usize,
    kind: Kind,
    out: &mut Vec<Finding>,
) -> bool {
    // Cheap test first: a header cell is between commas or line ends.
    let quoted = text.get(name_end) == Some(&b'"');
    let after = name_end + usize::from(quoted);
    let before = name_start - usize::from(quoted && name_start > 0);
    let ends_cell = matches!(text.get(after), None | Some(b',' | b'\n' | b'\r'))
        || matches!(escape_at(text, after), Some((b'n' | b'r', _)));
    let header = line_start(text, before, 1024);
    let starts_cell = before == header || text[before - 1] == b',';
    if !ends_cell || !starts_cell {
        return false;
    }
    let header_end = row_end(text, name_end, 1024);
    let names = cells(text, header, header_end);
    let Some(column) = names.iter().position(|&(s, _)| s == name_start) else {
        return false;
    };
    if !is_header(text, &names) {
        return false;
    }
    let mut i = next_line(text, header_end);
    for _ in 0..MAX_ROWS {
        if i >= text.len() {
            break;
        }
        let end = row_end(text, i, 4096);
        let row = cells(text, i, end);
        if end == i || row.len() != names.len() {
            break;
        }
        let (start, end_cell) = row[column];
        let value = Value {
            start,
            end: end_cell,
            quoted: true,
        };
        if end_cell > start && accepts_value(text, kind, value) {
            out.push(Finding {
                rule: "csv_secret_column",
                start,
                end: end_cell,
            });
        }
        i = next_line(text, end);
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    fn column<'a>(text: &'a str, name: &str, kind: Kind) -> Vec<&'a str> {
        let at = text.find(name).unwrap();
        let mut out = Vec::new();
        secret_column(text.as_bytes(), at, at + name.len(), kind, &mut out);
        out.iter().map(|f| &text[f.start..f.end]).collect()
    }

    #[test]
    fn a_password_column_loses_its_cells() {
        let t = "name,url,username,password\ngithub,https://github.com,alice,Tr0ub4dor&3horse\nmail,https://mail.example.org,alice,\"Pa,ss!w0rd9\"\n\nafter,the,table,r3alPassw0rd\n";
        assert_eq!(
            column(t, "password", Kind::Password),
            ["Tr0ub4dor&3horse", "Pa,ss!w0rd9"]
        );
        let t = "folder,type,name,login_username,login_password,login_totp\n,login,aws,ops,Zq8!mR2#vL5p,\n";
        assert_eq!(
            column(t, "login_password", Kind::Password),
            ["Zq8!mR2#vL5p"]
        );
    }

    #[test]
    fn not_a_header_or_not_a_secret() {
        // Prose with commas is no header; an empty or placeholder cell stays.
        let t = "set the password, then log in\nfoo,bar\n";
        assert!(column(t, "password", Kind::Password).is_empty());
        let t = "user,password\nalice,\nbob,changeme\n";
        assert!(column(t, "password", Kind::Password).is_empty());
    }
}
