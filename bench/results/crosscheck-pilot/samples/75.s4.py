def is_multiply_prime(a):
    """Write a function that returns true if the given number is the multiplication of 3 prime numbers
    and false otherwise.
    Knowing that (a) is less then 100. 
    Example:
    is_multiply_prime(30) == True
    30 = 2 * 3 * 5
    """
    if a < 2:
        return False

    prime_count = 0
    for i in range(2, int(a**0.5) + 1):
        if a % i == 0:
            prime_count += 1
            while a % i == 0:
                a //= i

    if a > 1:
        prime_count += 1

    return prime_count == 3
