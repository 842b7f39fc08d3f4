#include <stdio.h>
#include "util.h"

#define MAX 10

/* A point. */
struct point {
    int x;
};

typedef struct point point_t;

// Prints a point.
void print_point(point_t *p) {
    printf("%d", p->x);
    helper(p);
}

static int counter = 0;
