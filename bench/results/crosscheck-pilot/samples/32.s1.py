import math


def poly(xs: list, x: float):
    """
    Evaluates polynomial with coefficients xs at point x.
    return xs[0] + xs[1] * x + xs[1] * x^2 + .... xs[n] * x^n
    """
    return sum([coeff * math.pow(x, i) for i, coeff in enumerate(xs)])


def find_zero(xs: list):
    """ xs are coefficients of a polynomial.
    find_zero find x such that poly(x) = 0.
    find_zero returns only only zero point, even if there are many.
    Moreover, find_zero only takes list xs having even number of coefficients
    and largest non zero coefficient as it guarantees
    a solution.
    >>> round(find_zero([1, 2]), 2) # f(x) = 1 + 2x
    -0.5
    >>> round(find_zero([-6, 11, -6, 1]), 2) # (x - 1) * (x - 2) * (x - 3) = -6 + 11x - 6x^2 + x^3
    1.0
    """
    if len(xs) % 2 != 0:
        raise ValueError("The list xs must have even number of coefficients")
    
    # Find the largest non zero coefficient
    largest_non_zero = max(xs, key=lambda coeff: abs(coeff))
    
    # Since the largest non zero coefficient is non-zero,
    # the polynomial will always have a root, which can be found using numerical methods like Newton's method.
    # For simplicity, we use the quadratic formula for polynomials of degree 2.
    if len(xs) == 2:
        a, b = xs
        return -b / (2 * a)
    elif len(xs) == 3:
        a, b, c = xs
        discriminant = b**2 - 4*a*c
        if discriminant < 0:
            raise ValueError("The polynomial has no real roots")
        return (b + math.sqrt(discriminant)) / (2*a)
    else:
        raise ValueError("The polynomial must have an even number of coefficients and at least degree 3")
