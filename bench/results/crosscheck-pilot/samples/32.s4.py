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
        raise ValueError("List must have even number of coefficients")
    
    # Find the largest non-zero coefficient
    max_coeff = max(xs)
    if max_coeff == 0:
        raise ValueError("List must have at least one non-zero coefficient")
    
    # Divide the entire polynomial by the largest non-zero coefficient
    xs_divided = [coeff / max_coeff for coeff in xs]
    
    # Now, we can use a simple iterative method to find the root
    tolerance = 1e-6
    x_guess = 0.0
    while True:
        x_new = poly(xs_divided, x_guess)
        if abs(x_new - x_guess) < tolerance:
            return x_guess
        x_guess = x_new
