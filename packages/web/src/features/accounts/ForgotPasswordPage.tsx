import { FeaturePending } from '../../components/FeaturePending.tsx';

export default function ForgotPasswordPage() {
  return <FeaturePending titleKey="pages.forgotPassword" />;
}
