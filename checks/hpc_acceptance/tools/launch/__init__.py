'''Starting a ReFrame run: one per checkout at a time, its report file,
the call itself with its signals.
'''
