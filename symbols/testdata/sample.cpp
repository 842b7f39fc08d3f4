#include <vector>
#include "shape.hpp"

namespace geo {

// A circle.
class Circle : public Shape {
public:
    double area() const;
};

double Circle::area() const {
    return helper(2.0);
}

}  // namespace geo

int main() {
    geo::Circle c;
    return static_cast<int>(c.area());
}
