//! The slice of JSON-RPC 2.0 that MCP's stdio transport uses: one message
//! per line, requests (with an `id`) answered with a result or an error,
//! notifications (without one) never answered.

use serde_json::{Value, json};

/// JSON-RPC error codes.
pub mod code {
    /// The line is not JSON.
    pub const PARSE_ERROR: i64 = -32700;
    /// JSON, but not a request.
    pub const INVALID_REQUEST: i64 = -32600;
    /// No such method.
    pub const METHOD_NOT_FOUND: i64 = -32601;
    /// The method's parameters are wrong.
    pub const INVALID_PARAMS: i64 = -32602;
}

/// One incoming message.
#[derive(Debug, Clone, PartialEq)]
pub enum Message {
    /// A request to answer.
    Request {
        /// Its id, echoed in the answer.
        id: Value,
        /// The method.
        method: String,
        /// Its parameters (`{}` when absent).
        params: Value,
    },
    /// A notification (no answer).
    Notification {
        /// The method.
        method: String,
    },
    /// A response to something we sent (we send no requests: ignored).
    Response,
    /// Not a JSON-RPC message: answered with this error when it has an id.
    Invalid {
        /// The id, if one could be read.
        id: Value,
        /// Why it is not valid.
        error: String,
    },
}

/// Reads one JSON value as a message.
pub fn parse(value: Value) -> Message {
    let Value::Object(map) = value else {
        return Message::Invalid {
            id: Value::Null,
            error: "a JSON-RPC message must be an object".into(),
        };
    };
    let id = map.get("id").cloned();
    let valid_id = |id: &Value| matches!(id, Value::String(_) | Value::Number(_));
    match map.get("method") {
        Some(Value::String(method)) => {
            let params = map.get("params").cloned().unwrap_or_else(|| json!({}));
            match id {
                Some(id) if valid_id(&id) => Message::Request {
                    id,
                    method: method.clone(),
                    params,
                },
                Some(Value::Null) | None => Message::Notification {
                    method: method.clone(),
                },
                Some(_) => Message::Invalid {
                    id: Value::Null,
                    error: "the id must be a string or a number".into(),
                },
            }
        }
        Some(_) => Message::Invalid {
            id: id.filter(valid_id).unwrap_or(Value::Null),
            error: "the method must be a string".into(),
        },
        None if map.contains_key("result") || map.contains_key("error") => Message::Response,
        None => Message::Invalid {
            id: id.filter(valid_id).unwrap_or(Value::Null),
            error: "no method".into(),
        },
    }
}

/// A successful answer.
pub fn result(id: &Value, result: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "result": result})
}

/// An error answer.
pub fn error(id: &Value, code: i64, message: impl Into<String>) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message.into()}})
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn requests_notifications_and_junk() {
        assert_eq!(
            parse(json!({"jsonrpc":"2.0","id":1,"method":"ping"})),
            Message::Request {
                id: json!(1),
                method: "ping".into(),
                params: json!({})
            }
        );
        assert_eq!(
            parse(json!({"jsonrpc":"2.0","method":"notifications/initialized"})),
            Message::Notification {
                method: "notifications/initialized".into()
            }
        );
        assert_eq!(
            parse(json!({"jsonrpc":"2.0","id":"a","result":{}})),
            Message::Response
        );
        assert!(matches!(parse(json!([1, 2])), Message::Invalid { .. }));
        assert!(matches!(
            parse(json!({"id": {"x": 1}, "method": "ping"})),
            Message::Invalid { .. }
        ));
        assert!(matches!(
            parse(json!({"id": 3, "method": 7})),
            Message::Invalid { id, .. } if id == json!(3)
        ));
    }
}
