//! Keeping the head and tail of a stream of rendered events within a byte budget.

use crate::sources::Event;
use crate::util::text::{estimate_tokens, truncate_middle};
use std::collections::VecDeque;

/// Collects events; keeps the first half of the budget and a sliding last half.
pub struct HeadTail {
    budget: usize,
    head: Vec<(Event, String)>,
    head_bytes: usize,
    head_full: bool,
    tail: VecDeque<(Event, String)>,
    tail_bytes: usize,
    omitted_events: usize,
    omitted_bytes: usize,
}

/// The result: kept events and the text the model sees.
pub struct Cut {
    pub head: Vec<Event>,
    pub tail: Vec<Event>,
    pub omitted_events: usize,
    pub omitted_bytes: usize,
    pub text: String,
}

impl HeadTail {
    pub fn new(budget: usize) -> HeadTail {
        HeadTail {
            budget,
            head: Vec::new(),
            head_bytes: 0,
            head_full: false,
            tail: VecDeque::new(),
            tail_bytes: 0,
            omitted_events: 0,
            omitted_bytes: 0,
        }
    }

    fn half(&self) -> usize {
        self.budget / 2
    }

    pub fn push(&mut self, event: Event, rendered: String) {
        let len = rendered.len() + 1;
        if !self.head_full && self.head_bytes + len <= self.half() {
            self.head_bytes += len;
            self.head.push((event, rendered));
            return;
        }
        self.head_full = true;
        self.tail_bytes += len;
        self.tail.push_back((event, rendered));
        let tail_budget = self.budget - self.half();
        while self.tail_bytes > tail_budget && self.tail.len() > 1 {
            if let Some((_, r)) = self.tail.pop_front() {
                self.tail_bytes -= r.len() + 1;
                self.omitted_events += 1;
                self.omitted_bytes += r.len() + 1;
            }
        }
    }

    pub fn finish(self) -> Cut {
        let mut text = String::with_capacity(self.head_bytes + self.tail_bytes + 64);
        for (_, r) in &self.head {
            text.push_str(r);
            text.push('\n');
        }
        let mut marker_len = 0;
        if self.omitted_events > 0 {
            let marker = format!(
                "\n[… {} events, {} tokens truncated …]\n\n",
                self.omitted_events,
                estimate_tokens(self.omitted_bytes)
            );
            marker_len = marker.len();
            text.push_str(&marker);
        }
        for (_, r) in &self.tail {
            text.push_str(r);
            text.push('\n');
        }
        let mut omitted_bytes = self.omitted_bytes;
        if text.len() - marker_len > self.budget {
            // One event alone is larger than half the budget: cut the text itself.
            let before = text.len();
            text = truncate_middle(&text, self.budget).0;
            omitted_bytes += before.saturating_sub(self.budget);
        }
        Cut {
            head: self.head.into_iter().map(|(e, _)| e).collect(),
            tail: self.tail.into_iter().map(|(e, _)| e).collect(),
            omitted_events: self.omitted_events,
            omitted_bytes,
            text,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sources::{Message, Role};

    fn msg(i: usize) -> (Event, String) {
        let text = format!("message number {i:04}");
        let e = Event::Message(Message {
            role: Role::User,
            text: text.clone(),
            phase: None,
            at: None,
            line: i as u64,
            citation: None,
        });
        (e, format!("[user] {text}"))
    }

    #[test]
    fn under_budget_keeps_everything() {
        let mut c = HeadTail::new(10_000);
        for i in 0..10 {
            let (e, r) = msg(i);
            c.push(e, r);
        }
        let cut = c.finish();
        assert_eq!(cut.head.len() + cut.tail.len(), 10);
        assert_eq!(cut.omitted_events, 0);
        assert!(!cut.text.contains("truncated"));
    }

    #[test]
    fn over_budget_keeps_head_and_tail_with_marker() {
        let mut c = HeadTail::new(500);
        for i in 0..100 {
            let (e, r) = msg(i);
            c.push(e, r);
        }
        let cut = c.finish();
        assert!(cut.text.len() <= 500 + 64, "{}", cut.text.len());
        assert!(cut.text.starts_with("[user] message number 0000"));
        assert!(cut.text.trim_end().ends_with("message number 0099"));
        assert!(cut.text.contains("events,") && cut.text.contains("tokens truncated"));
        assert_eq!(cut.head.len() + cut.tail.len() + cut.omitted_events, 100);
    }

    #[test]
    fn a_single_huge_event_is_cut_in_the_middle() {
        let mut c = HeadTail::new(100);
        let e = Event::Message(Message {
            role: Role::User,
            text: "é".repeat(500),
            phase: None,
            at: None,
            line: 1,
            citation: None,
        });
        c.push(e, format!("[user] {}", "é".repeat(500)));
        let cut = c.finish();
        assert!(cut.text.contains("tokens truncated"));
        assert!(cut.text.len() < 200);
    }
}
