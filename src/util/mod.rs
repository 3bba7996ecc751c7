//! Small helpers shared by every module: time, ids, hashing, text cutting,
//! atomic files and the allocator.

pub mod alloc;
pub mod crashpoint;
pub mod fsx;
pub mod hash;
pub mod ids;
pub mod process;
pub mod text;
pub mod time;
