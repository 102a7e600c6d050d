import { FeaturePending } from '../../components/FeaturePending.tsx';

export default function ResetPasswordPage() {
  return <FeaturePending titleKey="pages.resetPassword" />;
}
