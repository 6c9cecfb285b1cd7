from math import sqrt

def is_multiply_prime(a):
    if a > 100 or a <= 1:
        return False
    
    count = 0
    for i in range(2, int(sqrt(a)) + 1):
        if a % i == 0:
            count += 1
            while a % i == 0:
                a //= i
    if count == 3:
        return True
    return False
