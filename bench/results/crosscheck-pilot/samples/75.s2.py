def is_multiply_prime(a):
    # Check if the number is less than 3
    if a < 3:
        return False
    
    # Initialize a counter for prime factors
    prime_count = 0
    
    # Check for factors of 2
    while a % 2 == 0:
        prime_count += 1
        a = a // 2
    
    # Check for odd factors
    for i in range(3, int(a**0.5) + 1, 2):
        while a % i == 0:
            prime_count += 1
            a = a // i
    
    # If a is a prime number greater than 2
    if a > 2:
        prime_count += 1
    
    # Return True if there are exactly 3 prime factors, False otherwise
    return prime_count == 3
