def prod_signs(arr):
    if not arr:  # Check if the array is empty
        return None
    product_of_signs = 1
    for num in arr:
        if num == 0:
            product_of_signs = 0
            break
        product_of_signs *= num * (-1 if num < 0 else 1)  # Multiply by the product of the signs
    return abs(product_of_signs)  # Return the sum of magnitudes of integers multiplied by product of all signs
