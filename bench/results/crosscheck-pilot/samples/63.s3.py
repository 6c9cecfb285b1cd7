from typing import *
from collections import *

def fibfib(n: int) -> int:
    # Base cases
    if n == 0 or n == 1:
        return 0
    elif n == 2:
        return 1
    
    # Initialize the first three Fibonacci numbers
    a, b, c = 0, 0, 1
    
    # Compute the Fibonacci number sequence up to the n-th element
    for i in range(3, n + 1):
        a, b, c = b, c, a + b + c
    
    return c
