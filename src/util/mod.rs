//! Small helpers shared by every module: time, ids, hashing, text cutting and atomic files.

pub mod crashpoint;
pub mod fsx;
pub mod hash;
pub mod ids;
pub mod process;
pub mod text;
pub mod time;
