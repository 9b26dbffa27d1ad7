use super::*;

fn read_all(bytes: &[u8]) -> Vec<Incoming> {
    let mut r = Reader::new(io::BufReader::with_capacity(7, bytes));
    let mut out = Vec::new();
    loop {
        match r.read() {
            Incoming::Eof => return out,
            m => out.push(m),
        }
    }
}

fn framed(body: &[u8]) -> Vec<u8> {
    let mut v = format!("Content-Length: {}\r\n\r\n", body.len()).into_bytes();
    v.extend_from_slice(body);
    v
}

fn describe(m: &Incoming) -> String {
    match m {
        Incoming::Message(Message::Request(r)) => format!("request {} {}", r.id, r.method),
        Incoming::Message(Message::Notification(n)) => format!("notification {}", n.method),
        Incoming::Message(Message::Response(r)) => format!("response {}", r.id),
        Incoming::Invalid { id, code, .. } => format!("invalid {} {id}", *code as i32),
        Incoming::Eof => "eof".into(),
    }
}

const OK: &[u8] = br#"{"jsonrpc":"2.0","id":7,"method":"shutdown"}"#;

#[test]
fn good_messages_in_a_row_with_any_line_ending_and_header_case() {
    let mut bytes = framed(OK);
    bytes.extend(b"content-length: 37\n\n{\"jsonrpc\":\"2.0\",\"method\":\"exit\"}    ");
    bytes.extend(b"\r\nContent-Type: application/vscode-jsonrpc; charset=utf-8\r\nContent-Length: 32\r\n\r\n");
    bytes.extend(br#"{"id":"a","result":null}        "#);
    let got: Vec<String> = read_all(&bytes).iter().map(describe).collect();
    assert_eq!(got, ["request 7 shutdown", "notification exit", "response \"a\""]);
}

/// Each broken frame is answered, and the next message is read.
#[test]
fn broken_frames_are_answered_then_reading_goes_on() {
    let cases: Vec<(Vec<u8>, &str)> = vec![
        (b"X-Foo: 1\r\n\r\n{}\n".to_vec(), "invalid -32700 null"),
        (b"Content-Length: -5\r\n\r\n".to_vec(), "invalid -32700 null"),
        (b"Content-Length: 99999999999999999999999\r\n\r\n".to_vec(), "invalid -32700 null"),
        (format!("X: {}\r\n\r\n", "a".repeat(5000)).into_bytes(), "invalid -32700 null"),
        ("X: 1\r\n".repeat(40).into_bytes(), "invalid -32700 null"),
        (b"no colon here\r\n\r\n".to_vec(), "invalid -32700 null"),
        (framed(br#"{"jsonrpc": "2.0", "method": "#), "invalid -32700 null"),
        (framed(b"{\"a\":\"\xff\xfe\"}"), "invalid -32700 null"),
        (framed(br#"{"a":1}"#), "invalid -32600 null"),
        (framed(br#"[1,2]"#), "invalid -32600 null"),
        (framed(br#"{"jsonrpc":"2.0","id":{"a":1},"method":"x"}"#), "invalid -32600 null"),
        (framed(br#"{"jsonrpc":"2.0","id":null,"method":"x"}"#), "invalid -32600 null"),
        (framed(br#"{"jsonrpc":"2.0","id":1.5,"method":"x"}"#), "invalid -32600 1.5"),
        (framed(br#"{"jsonrpc":"2.0","id":4294967296,"method":"x"}"#), "invalid -32600 4294967296"),
        (framed(br#"{"jsonrpc":"2.0","id":3,"method":5}"#), "invalid -32600 3"),
        (framed(br#"{"jsonrpc":"2.0","id":3,"method":"x","params":"p"}"#), "invalid -32600 3"),
        (framed(br#"{"jsonrpc":"1.0","id":3,"method":"x"}"#), "invalid -32600 null"),
        (framed(br#"{"jsonrpc":"2.0","id":3}"#), "invalid -32600 null"),
    ];
    for (bad, want) in cases {
        let mut bytes = bad.clone();
        bytes.extend(framed(OK));
        let got: Vec<String> = read_all(&bytes).iter().map(describe).collect();
        assert_eq!(got, [want, "request 7 shutdown"], "{}", String::from_utf8_lossy(&bad[..bad.len().min(80)]));
    }
}

/// A length over the limit is refused before any of the body is read, and
/// the body is skipped without being kept.
#[test]
fn a_body_over_the_limit_is_refused_then_skipped() {
    let n = MAX_MESSAGE + 1;
    let mut bytes = format!("Content-Length: {n}\r\n\r\n").into_bytes();
    bytes.resize(bytes.len() + n, b' ');
    bytes.extend(framed(OK));
    let got: Vec<String> = read_all(&bytes).iter().map(describe).collect();
    assert_eq!(got, ["invalid -32600 null", "request 7 shutdown"]);
    // A length that never arrives: refused at once, then the stream ends.
    let mut r = Reader::new(&b"Content-Length: 1000000000000000\r\n\r\n{}"[..]);
    assert_eq!(describe(&r.read()), "invalid -32600 null");
    assert_eq!(describe(&r.read()), "eof");
}

#[test]
fn lone_surrogates_become_replacement_characters_and_pairs_stay() {
    let body = br#"{"jsonrpc":"2.0","method":"m","params":{"t":"a\ud800b\udc00c\ud834\udd1e\\ud800\ud800"}}"#;
    let got = read_all(&framed(body));
    let [Incoming::Message(Message::Notification(n))] = &got[..] else { panic!("{got:?}") };
    assert_eq!(n.params["t"], "a\u{fffd}b\u{fffd}c\u{1d11e}\\ud800\u{fffd}");
}

#[test]
fn a_stream_cut_anywhere_ends_cleanly() {
    let bytes = framed(OK);
    for cut in 0..bytes.len() {
        let got: Vec<String> = read_all(&bytes[..cut]).iter().map(describe).collect();
        assert!(got.is_empty() || got.iter().all(|g| g.starts_with("invalid")), "{cut}: {got:?}");
    }
}
