const EMAIL = /^[^\s@]{1,64}@[^\s@]{1,189}$/;

/** A plausible email address (a user's sign-in name, an owner's at organisation creation). */
export const isEmail = (email: string): boolean => EMAIL.test(email);
