use std::collections::HashMap;

/// A point in space.
pub struct Point {
    x: f64,
}

pub trait Shape {
    fn area(&self) -> f64;
}

impl Shape for Point {
    /// The area of a point.
    fn area(&self) -> f64 {
        helper(self.x)
    }
}

pub enum Color { Red }
pub const ORIGIN: i32 = 0;

fn helper(v: f64) -> f64 {
    let m: HashMap<i32, i32> = HashMap::new();
    v
}
