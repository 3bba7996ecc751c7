//! The read path: what agents are given at start-up (`memkit inject`) and the
//! citation blocks they emit when they use a memory.

pub mod citations;
pub mod inject;
