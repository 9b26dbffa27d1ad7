//! The wire: messages framed by `Content-Length` headers, read with bounded
//! memory from any byte stream, and checked against JSON-RPC before the
//! server sees them.
//!
//! Whatever arrives, the reader never allocates more than
//! [`MAX_MESSAGE`] bytes for one message, never before the bytes arrive,
//! and never stops before the end of the stream: a header it cannot read,
//! a body over the limit, a body that is not UTF-8 or not JSON, or JSON that
//! is not a JSON-RPC message each become an [`Incoming::Invalid`] (answered
//! with a JSON-RPC error), and reading goes on with the next message.

use std::io::{self, BufRead, Read, Write};

use lsp_server::{ErrorCode, Message, Notification, Request, RequestId, Response};
use serde_json::{json, Map, Value};

/// The largest message accepted, in bytes (16 MiB: a rule file of the
/// largest size a file may have, 1 MiB, escaped as JSON many times over).
pub const MAX_MESSAGE: usize = 16 << 20;
/// The longest header line accepted, in bytes.
const MAX_HEADER_LINE: usize = 1024;
/// The most header lines one message may have.
const MAX_HEADERS: usize = 32;

/// What the reader found next.
#[derive(Debug)]
pub enum Incoming {
    Message(Message),
    /// Bytes that are not a message: answer `code` to `id` (JSON-RPC's
    /// null when the id could not be read).
    Invalid {
        id: Value,
        code: ErrorCode,
        message: String,
    },
    /// The end of the stream.
    Eof,
}

fn invalid(code: ErrorCode, message: impl Into<String>) -> Incoming {
    Incoming::Invalid { id: Value::Null, code, message: message.into() }
}

/// The framing reader.
pub struct Reader<R> {
    inner: R,
    /// Bytes of a refused body still to be skipped.
    skip: u64,
    /// After a header without a usable `Content-Length`: lines are skipped
    /// until one starts with `Content-Length:`.
    resync: bool,
}

/// One header line.
enum Line {
    Text(Vec<u8>),
    TooLong,
    Eof,
}

impl<R: BufRead> Reader<R> {
    pub fn new(inner: R) -> Self {
        Reader { inner, skip: 0, resync: false }
    }

    /// The next message, or why the next bytes are not one.
    pub fn read(&mut self) -> Incoming {
        match self.next_io() {
            Ok(incoming) => incoming,
            Err(_) => Incoming::Eof,
        }
    }

    fn next_io(&mut self) -> io::Result<Incoming> {
        if self.skip > 0 {
            let skipped = io::copy(&mut (&mut self.inner).take(self.skip), &mut io::sink())?;
            if skipped < self.skip {
                return Ok(Incoming::Eof);
            }
            self.skip = 0;
        }
        let length = match self.header()? {
            Ok(Some(n)) => n,
            Ok(None) => return Ok(Incoming::Eof),
            Err(problem) => {
                self.resync = true;
                return Ok(problem);
            }
        };
        if length > MAX_MESSAGE as u64 {
            self.skip = length;
            return Ok(invalid(
                ErrorCode::InvalidRequest,
                format!("a message of {length} bytes is refused: the limit is {MAX_MESSAGE} bytes"),
            ));
        }
        let mut body = Vec::with_capacity((length as usize).min(64 << 10));
        (&mut self.inner).take(length).read_to_end(&mut body)?;
        if (body.len() as u64) < length {
            return Ok(Incoming::Eof);
        }
        Ok(decode(body))
    }

    /// Reads a header block: `Ok(Ok(Some(length)))`, `Ok(Ok(None))` at
    /// the end of the stream, or the problem to answer.
    fn header(&mut self) -> io::Result<Result<Option<u64>, Incoming>> {
        let mut length = None;
        let mut lines = 0;
        loop {
            let line = match self.line()? {
                Line::Eof => return Ok(Ok(None)),
                Line::TooLong => return Ok(Err(invalid(ErrorCode::ParseError, "a header line is too long"))),
                Line::Text(t) => t,
            };
            let is_length = line.len() >= 15 && line[..15].eq_ignore_ascii_case(b"content-length:");
            if self.resync && !is_length {
                continue;
            }
            self.resync = false;
            if line.is_empty() {
                if lines == 0 {
                    // Blank lines between messages.
                    continue;
                }
                return Ok(match length {
                    Some(n) => Ok(Some(n)),
                    None => Err(invalid(ErrorCode::ParseError, "a message without a Content-Length header")),
                });
            }
            lines += 1;
            if lines > MAX_HEADERS {
                return Ok(Err(invalid(ErrorCode::ParseError, "too many header lines")));
            }
            match header_field(&line) {
                Some((name, value)) if name == "content-length" => match value.parse::<u64>() {
                    Ok(n) if value.bytes().all(|b| b.is_ascii_digit()) => length = Some(n),
                    _ => {
                        return Ok(Err(invalid(
                            ErrorCode::ParseError,
                            format!(
                                "`Content-Length: {}` is not a length in bytes",
                                crate::syntax::parse::visible(value)
                            ),
                        )))
                    }
                },
                Some(_) => {}
                None => return Ok(Err(invalid(ErrorCode::ParseError, "a header line is not `Name: value`"))),
            }
        }
    }

    /// One line, without its `\r\n` or `\n`; at most [`MAX_HEADER_LINE`]
    /// bytes are kept (the rest of a longer line is read and dropped).
    fn line(&mut self) -> io::Result<Line> {
        let mut out = Vec::new();
        let mut too_long = false;
        loop {
            let buf = self.inner.fill_buf()?;
            if buf.is_empty() {
                return Ok(if out.is_empty() && !too_long { Line::Eof } else { Line::Text(out) });
            }
            let (chunk, done) = match memchr::memchr(b'\n', buf) {
                Some(i) => (&buf[..i], i + 1),
                None => (buf, buf.len()),
            };
            if out.len() + chunk.len() > MAX_HEADER_LINE {
                too_long = true;
            } else {
                out.extend_from_slice(chunk);
            }
            let ended = done > chunk.len();
            self.inner.consume(done);
            if ended {
                if too_long {
                    return Ok(Line::TooLong);
                }
                if out.last() == Some(&b'\r') {
                    out.pop();
                }
                return Ok(Line::Text(out));
            }
        }
    }
}

/// `Name: value` with the name in lower case; `None` when the line is not
/// a header field.
fn header_field(line: &[u8]) -> Option<(String, &str)> {
    let text = std::str::from_utf8(line).ok()?;
    let (name, value) = text.split_once(':')?;
    let token = !name.is_empty() && name.bytes().all(|b| b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b));
    token.then(|| (name.to_ascii_lowercase(), value.trim()))
}

/// A body as a message.
fn decode(mut body: Vec<u8>) -> Incoming {
    if let Err(e) = std::str::from_utf8(&body) {
        return invalid(
            ErrorCode::ParseError,
            format!("the message is not UTF-8 (an invalid byte at offset {})", e.valid_up_to()),
        );
    }
    replace_lone_surrogates(&mut body);
    let value: Value = match serde_json::from_slice(&body) {
        Ok(v) => v,
        Err(e) => return invalid(ErrorCode::ParseError, format!("the message is not JSON: {e}")),
    };
    drop(body);
    message(value)
}

/// Replaces each `\uD800`..`\uDFFF` escape that is not half of a pair
/// by `\uFFFD` (also one UTF-16 unit, so positions are unchanged): a
/// JavaScript client may send a lone surrogate that its editor holds, and
/// JSON allows it, but a Rust string cannot hold it.
fn replace_lone_surrogates(body: &mut [u8]) {
    let hex = |b: &[u8]| std::str::from_utf8(b).ok().and_then(|h| u16::from_str_radix(h, 16).ok());
    let surrogate = |b: &[u8], i: usize| -> Option<u16> {
        (b.get(i..i + 2) == Some(b"\\u")).then(|| b.get(i + 2..i + 6).and_then(hex)).flatten()
    };
    let (mut i, mut in_string) = (0, false);
    while i < body.len() {
        match body[i] {
            b'"' => in_string = !in_string,
            b'\\' if in_string => {
                let Some(u) = surrogate(body, i) else {
                    i += 2;
                    continue;
                };
                let paired = (0xD800..0xDC00).contains(&u)
                    && surrogate(body, i + 6).is_some_and(|l| (0xDC00..0xE000).contains(&l));
                if paired {
                    i += 12;
                    continue;
                }
                if (0xD800..0xE000).contains(&u) {
                    body[i + 2..i + 6].copy_from_slice(b"FFFD");
                }
                i += 6;
                continue;
            }
            _ => {}
        }
        i += 1;
    }
}

/// A JSON value as a JSON-RPC message of the protocol.
fn message(value: Value) -> Incoming {
    let Value::Object(mut obj) = value else {
        return invalid(ErrorCode::InvalidRequest, "a message is a JSON object (batches are not part of the protocol)");
    };
    if obj.get("jsonrpc").is_some_and(|v| v != "2.0") {
        return invalid(ErrorCode::InvalidRequest, "`jsonrpc` must be \"2.0\"");
    }
    let id = obj.remove("id");
    let echo = |id: &Option<Value>| match id {
        Some(v @ (Value::String(_) | Value::Number(_))) => v.clone(),
        _ => Value::Null,
    };
    let bad = |id: &Option<Value>, message: &str| Incoming::Invalid {
        id: echo(id),
        code: ErrorCode::InvalidRequest,
        message: message.to_string(),
    };
    let request_id = match &id {
        None => None,
        Some(Value::String(s)) => Some(RequestId::from(s.clone())),
        Some(Value::Number(n)) => match n.as_i64().and_then(|n| i32::try_from(n).ok()) {
            Some(n) => Some(RequestId::from(n)),
            None => return bad(&id, "an id is a string or an integer of 32 bits"),
        },
        Some(_) => return bad(&id, "an id is a string or an integer"),
    };
    let params = obj.remove("params").unwrap_or(Value::Null);
    if !matches!(params, Value::Null | Value::Object(_) | Value::Array(_)) {
        return bad(&id, "`params` is an object or an array");
    }
    match (obj.remove("method"), request_id) {
        (Some(Value::String(method)), Some(id)) => Incoming::Message(Message::Request(Request { id, method, params })),
        (Some(Value::String(method)), None) => {
            Incoming::Message(Message::Notification(Notification { method, params }))
        }
        (Some(_), _) => bad(&id, "`method` is a string"),
        (None, Some(id)) => response(id, obj),
        (None, None) => bad(&id, "a message has a `method` (a request or a notification) or an `id` (a response)"),
    }
}

fn response(id: RequestId, mut obj: Map<String, Value>) -> Incoming {
    let result = match (obj.remove("result"), obj.remove("error")) {
        (Some(r), None) => Ok(r),
        (None, Some(e)) => match serde_json::from_value(e) {
            Ok(e) => Err(e),
            Err(_) => return invalid(ErrorCode::InvalidRequest, "a response's `error` has a code and a message"),
        },
        _ => return invalid(ErrorCode::InvalidRequest, "a response has either `result` or `error`"),
    };
    Incoming::Message(Message::Response(Response { id, response_result: result }))
}

/// Writes a message (lsp-server's framing).
pub fn write(out: &mut impl Write, msg: Message) -> io::Result<()> {
    msg.write(out)
}

/// Writes a JSON-RPC error for bytes that were not a message.
pub fn write_invalid(out: &mut impl Write, id: Value, code: ErrorCode, message: &str) -> io::Result<()> {
    let body = json!({ "jsonrpc": "2.0", "id": id, "error": { "code": code as i32, "message": message } }).to_string();
    write!(out, "Content-Length: {}\r\n\r\n{body}", body.len())?;
    out.flush()
}

#[cfg(test)]
mod tests;
