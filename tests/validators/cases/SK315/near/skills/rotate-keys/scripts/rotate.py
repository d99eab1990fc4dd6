print('rotated')
