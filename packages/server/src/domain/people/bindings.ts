import { people } from '@finance-desk/protocol';
import { bind, bindSignature, bindQuery, type MethodBinding } from '../../binding.js';
import { employeeTerminate } from './employee-terminate.js';
import { employeeUpdate } from './employee-update.js';
import { onboardingStart } from './employees.js';
import { listEmployees } from './employees-read.js';
import { leaveApprove, leaveRequest } from './leave.js';
import { onboardingAdvance } from './onboarding.js';

/** Methods of this area (people: onboarding, changes, termination, leave, the employees read), bound once (registry.ts). */
export const peopleBindings: readonly MethodBinding[] = [
  bind(people.onboardingStart, onboardingStart),
  bindSignature(onboardingAdvance),
  bindSignature(employeeUpdate),
  bind(people.employeeTerminate, employeeTerminate),
  bind(people.leaveRequest, leaveRequest),
  bind(people.leaveApprove, leaveApprove),
  bindQuery(people.employees, listEmployees),
];
