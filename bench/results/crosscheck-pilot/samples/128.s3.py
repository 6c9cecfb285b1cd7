from functools import reduce
from operator import mul

def prod_signs(arr):
    if not arr:
        return None
    
    sign_product = reduce(mul, map(abs, arr))
    num_signs = sum(map(lambda x: x == 0, arr))
    if num_signs == len(arr):
        return 0
    
    return sign_product * (-1) ** num_signs
